const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A timestamp as a person reads it, in their locale and time zone; the exact ISO time in a tooltip. */
export function formatDateTime(iso: string | null | undefined): string {
	return iso ? dateTime.format(new Date(iso)) : "never";
}
