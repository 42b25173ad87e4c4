import { z } from "zod";
import { findEgressRefusal } from "../egress/egress-refused-error";
import { ProviderError, type ProviderFailureKind } from "./provider-error";

/**
 * Turning whatever a provider SDK throws into one ProviderError, shared by every adapter.
 * Bodies are parsed with zod because they come from outside: a proxy's HTML 502 page must not
 * crash the mapping, it just yields no upstream message.
 */

/** OpenAI: `{"error":{"message","type","param","code"}}`. */
const ZOpenAiErrorBody = z.object({
	error: z.object({ message: z.string().optional(), type: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }),
});
/** Mistral: `{"object":"error","message","type","param","code"}`; 422s are FastAPI's `{"detail":[...]}`. */
const ZMistralErrorBody = z.object({
	object: z.literal("error").optional(),
	message: z.union([z.string(), z.record(z.unknown())]),
	type: z.string().nullish(),
	code: z.union([z.string(), z.number()]).nullish(),
});
const ZValidationDetailBody = z.object({ detail: z.union([z.string(), z.array(z.object({ msg: z.string().optional(), loc: z.array(z.unknown()).optional() }).passthrough())]) });

/** The human-readable part of a provider's error body, whichever of the known shapes it has. */
export function readUpstreamErrorMessage(body: unknown): string | undefined {
	let value = body;
	if (typeof value === "string") {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	const openAi = ZOpenAiErrorBody.safeParse(value);
	if (openAi.success) return openAi.data.error.message;
	const mistral = ZMistralErrorBody.safeParse(value);
	if (mistral.success) return typeof mistral.data.message === "string" ? mistral.data.message : JSON.stringify(mistral.data.message);
	const detail = ZValidationDetailBody.safeParse(value);
	if (detail.success) {
		const { detail: issues } = detail.data;
		if (typeof issues === "string") return issues;
		return issues.map((issue) => [issue.loc?.join("."), issue.msg].filter(Boolean).join(": ")).join("; ");
	}
	return undefined;
}

/** At most this much of a provider's own error message is quoted to the caller. */
const MAX_QUOTED_CHARACTERS = 300;

/**
 * The provider's own error message from an error body, fit to quote: only from a JSON body of a
 * known provider shape (an HTML page, an internal service's answer or anything else is never
 * quoted), the credential redacted, control characters and line breaks flattened to spaces, and
 * cut to 300 characters.
 */
export function quoteUpstreamErrorMessage(body: unknown, apiKey: string): string | undefined {
	const message = readUpstreamErrorMessage(body);
	if (!message) return undefined;
	const flat = redactSecret(message, apiKey)
		.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
		.replace(/\s+/g, " ")
		.trim();
	if (!flat) return undefined;
	return flat.length > MAX_QUOTED_CHARACTERS ? `${flat.slice(0, MAX_QUOTED_CHARACTERS - 1)}…` : flat;
}

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3); OpenAI also sends retry-after-ms. */
export function readRetryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
	if (!headers) return undefined;
	const milliseconds = Number(headers.get("retry-after-ms"));
	if (headers.get("retry-after-ms") && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
	const value = headers.get("retry-after");
	if (!value) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Never let a credential reach a message we show or log, even if a provider echoes it back. */
export function redactSecret(text: string, secret: string): string {
	if (!secret) return text;
	let redacted = text.split(secret).join("[redacted]");
	// OpenAI echoes keys partially masked (`sk-abc***xyz`); drop anything that looks like a key.
	redacted = redacted.replace(/\b(sk|csk|key)[-_][\w*-]{6,}/gi, "[redacted]");
	return redacted;
}

/** The failure a provider's error status is (not a redirect: calls never follow one, see providerErrorFromStatus). */
export function failureKindOfStatus(status: number): ProviderFailureKind {
	if (status === 429) return "rate_limited";
	if (status === 401 || status === 403) return "authentication";
	if (status === 408) return "timeout";
	if (status >= 500) return "server_error";
	return "invalid_request";
}

export function providerErrorFromStatus(input: {
	providerName: string;
	status: number;
	body: unknown;
	headers?: { get(name: string): string | null };
	apiKey: string;
	cause?: unknown;
}): ProviderError {
	const { providerName, status } = input;
	const upstreamMessage = quoteUpstreamErrorMessage(input.body, input.apiKey);
	const detail = upstreamMessage ? `: ${upstreamMessage}` : "";
	const options = { upstreamStatus: status, cause: input.cause };
	// Provider calls never follow redirects: a POST carrying the key must not be sent on to wherever a 3xx points.
	if (status >= 300 && status < 400) {
		return new ProviderError(
			"invalid_request",
			providerName,
			`${providerName} answered with a redirect (HTTP ${status}), which is not followed; set the base URL to the address it redirects to`,
			options,
		);
	}
	const kind = failureKindOfStatus(status);
	if (kind === "rate_limited") {
		return new ProviderError(kind, providerName, `${providerName} rate-limited the workspace's credential${detail}`, {
			...options,
			retryAfterMs: readRetryAfterMs(input.headers),
		});
	}
	// The provider's own wording for a bad key often quotes the key; say only what the operator must do.
	if (kind === "authentication") {
		return new ProviderError(kind, providerName, `${providerName} rejected the workspace's stored credential (HTTP ${status}); update it in the provider settings`, options);
	}
	if (kind === "timeout") return new ProviderError(kind, providerName, `${providerName} timed out handling the request`, options);
	if (kind === "server_error") return new ProviderError(kind, providerName, `${providerName} failed with HTTP ${status}${detail}`, options);
	return new ProviderError(kind, providerName, `${providerName} rejected the request (HTTP ${status})${detail}`, options);
}

const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

/** The first error of `error`'s `cause` chain (fetch wraps a socket error twice, an abort once) that `matches`. */
export function findCause(error: unknown, matches: (cause: { code?: unknown; name?: unknown }) => boolean): object | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
		if (matches(current as { code?: unknown; name?: unknown })) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** Walks `cause` chains looking for a network error code. */
export function findNetworkErrorCode(error: unknown): string | undefined {
	const found = findCause(error, ({ code }) => typeof code === "string" && CONNECTION_ERROR_CODES.has(code));
	return (found as { code: string } | undefined)?.code;
}

/**
 * The egress policy refused the credential's base URL (server/egress): the operator's setting or
 * the base URL must change, so it is the caller's to fix, and retrying cannot help.
 */
export function refusedDestination(providerName: string, error: unknown): ProviderError | undefined {
	const refusal = findEgressRefusal(error);
	if (!refusal) return undefined;
	return new ProviderError("invalid_request", providerName, `The ${providerName} base URL is refused: ${refusal.message}`, { cause: error, retryable: false });
}

export function connectionFailure(providerName: string, error: unknown): ProviderError {
	const refused = refusedDestination(providerName, error);
	if (refused) return refused;
	const code = findNetworkErrorCode(error);
	return new ProviderError("unavailable", providerName, `${providerName} could not be reached${code ? ` (${code})` : ""}`, { cause: error });
}

export function abortedFailure(providerName: string, error?: unknown): ProviderError {
	return new ProviderError("aborted", providerName, `The request to ${providerName} was cancelled`, { cause: error, retryable: false });
}

export function malformedResponse(providerName: string, what: string, cause?: unknown): ProviderError {
	return new ProviderError("malformed_response", providerName, `${providerName} sent a malformed answer (${what})`, { cause, retryable: false });
}

/** The connection ended before the provider finished; retryable only while nothing was streamed. */
export function truncatedStream(providerName: string): ProviderError {
	return new ProviderError("unavailable", providerName, `${providerName} closed the stream before finishing`);
}
