import type { IncomingMessage, ServerResponse } from "node:http";

/** What a route outside the contract receives: the request, its path, and its request id (already on the response). */
export interface RawCall {
	request: IncomingMessage;
	response: ServerResponse;
	path: string;
	requestId: string;
}

/**
 * A row of the route table that is not a contract route: the authorization server's endpoints and
 * pages, /mcp, presigned-upload PUTs, the dashboard's pages and assets. It names the paths it
 * answers and how its failures are answered: in the API's envelope, or (for pages a person reads)
 * as a page.
 */
export interface RawRoute {
	/** For the route table and logs. */
	name: string;
	matches(path: string, method: string): boolean;
	/** `envelope`: the spec's error envelope; `page`: an HTML page saying what went wrong, with the request id. */
	errors: "envelope" | "page";
	handle(call: RawCall): void | Promise<void>;
}

/** A route for one exact path (any method; the handler answers 405 itself where it must). */
export function exactPath(paths: string | readonly string[]): (path: string) => boolean {
	const set = new Set(typeof paths === "string" ? [paths] : paths);
	return (path) => set.has(path);
}
