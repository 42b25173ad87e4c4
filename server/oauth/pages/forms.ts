import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isStorableText } from "../../../contract/schemas/common";
import { renderErrorPage } from "./error-page";
import { PAGE_HEADERS } from "./layout";

/** A sign-in or consent form is a few hundred bytes; anything past this is refused unread. */
const FORM_BODY_LIMIT = 16 * 1024;

export class FormError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

/** An application/x-www-form-urlencoded body, within FORM_BODY_LIMIT. */
export async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
	const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
	if (type !== "application/x-www-form-urlencoded") throw new FormError(415, "This page accepts only its own form.");
	const declared = Number(request.headers["content-length"] ?? 0);
	if (declared > FORM_BODY_LIMIT) throw new FormError(413, "The form is too large.");
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > FORM_BODY_LIMIT) throw new FormError(413, "The form is too large.");
		chunks.push(chunk);
	}
	const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
	// The same guard as the API's: text PostgreSQL cannot store never reaches a query (it would fail there, as a 500).
	for (const [name, value] of form) {
		if (!isStorableText(name) || !isStorableText(value)) throw new FormError(400, "The form contains characters that cannot be used here (NUL or an unpaired surrogate). Type the values again.");
	}
	return form;
}

/** The form, or undefined once a page saying why it could not be read was sent (the connection then closes). */
export async function readFormOrRefuse(request: IncomingMessage, response: ServerResponse): Promise<URLSearchParams | undefined> {
	try {
		return await readForm(request);
	} catch (error) {
		if (!(error instanceof FormError)) throw error;
		sendPage(response, error.status, renderErrorPage({ title: "The form could not be read", message: error.message }), { connection: "close" });
		return undefined;
	}
}

export function sendPage(response: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
	response.writeHead(status, { ...PAGE_HEADERS, ...headers, "content-length": Buffer.byteLength(body) });
	response.end(body);
}

export function redirect(response: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
	response.writeHead(303, { location, "cache-control": "no-store", ...headers, "content-length": 0 });
	response.end();
}

/** HMAC-SHA256 of `value` under `key`, base64url: CSRF tokens and signed cookies. */
export function sign(key: Buffer, value: string): string {
	return createHmac("sha256", key).update(value).digest("base64url");
}

export function signatureMatches(key: Buffer, value: string, signature: string | null | undefined): boolean {
	if (!signature) return false;
	const expected = Buffer.from(sign(key, value));
	const given = Buffer.from(signature);
	return expected.length === given.length && timingSafeEqual(expected, given);
}

export function readCookie(request: IncomingMessage, name: string): string | undefined {
	for (const part of (request.headers.cookie ?? "").split(";")) {
		const [key, ...rest] = part.trim().split("=");
		if (key === name) return rest.join("=");
	}
	return undefined;
}

export function cookie(name: string, value: string, options: { path: string; maxAgeSeconds: number; secure: boolean; sameSite: "Strict" | "Lax" }): string {
	return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=${options.sameSite}${options.secure ? "; Secure" : ""}`;
}
