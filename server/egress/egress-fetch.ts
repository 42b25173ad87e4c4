import { type Dispatcher, fetch as undiciFetch } from "undici";

/** The WHATWG fetch signature, as the provider SDKs call it (a URL and init, or a Request). */
export type EgressFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * fetch over an egress dispatcher (egress-agent.ts): every connection it opens is checked, and a
 * redirect to another origin needs a connection of its own, so with `redirect: "follow"` (the
 * default) every hop is checked before anything is sent to it. Callers that must not follow
 * redirects at all (provider calls: a POST carrying a key) pass `redirect: "manual"` and get the 3xx.
 *
 * A Request object is taken apart first: undici's fetch only recognises its own Request class, and
 * the global one (the Mistral SDK's) is another. Only http and https are fetched.
 */
export function createEgressFetch(dispatcher: Dispatcher): EgressFetch {
	return async (input, init = {}) => {
		let target: string | URL;
		let options: RequestInit = init;
		if (typeof input === "object" && !(input instanceof URL)) {
			target = input.url;
			options = {
				method: input.method,
				headers: [...input.headers],
				body: input.body ? await input.arrayBuffer() : undefined,
				signal: input.signal,
				redirect: input.redirect,
				...init,
			};
		} else {
			target = input;
		}
		const url = new URL(target);
		if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`Only http and https URLs are fetched, not ${url.protocol}`);
		return (await undiciFetch(url, { ...(options as object), dispatcher })) as unknown as Response;
	};
}

/**
 * A response body as text when it is at most `maxBytes`, else undefined, reading no further than
 * that (an error body from an address a tenant chose can be anything, of any size).
 */
export async function readTextUpTo(response: Response, maxBytes: number): Promise<string | undefined> {
	if (!response.body) return "";
	const reader = response.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > maxBytes) {
			await reader.cancel();
			return undefined;
		}
		chunks.push(value);
	}
	return Buffer.concat(chunks).toString("utf8");
}
