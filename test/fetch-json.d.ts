// Tests read many JSON bodies and assert their shape with expect(); typing each one adds noise, not safety.
interface Response {
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
	json(): Promise<any>;
}
