/** The generated code puts path parameters in the path as they are; an id must never change the path. */
export function pathSegment(value: string): string {
	return encodeURIComponent(value);
}
