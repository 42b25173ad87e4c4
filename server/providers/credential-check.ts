import type { Cancellation } from "./cancellation";
import { ProviderError } from "./provider-error";
import { sanitizeProviderText } from "./sanitize-text";
import type { CredentialCheck } from "./types";
import type { UpstreamHttp, UpstreamResponse } from "./upstream-http";
import { abortedFailure, connectionFailure, providerErrorFromStatus } from "./upstream-errors";

/** A models list worth counting fits in this (OpenAI's is tens of kilobytes); past it the key still works, the count is unknown. */
const MAX_MODEL_LIST_BYTES = 1024 * 1024;
/** An error body worth reading is a provider's short JSON. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MODELS_NAMED = 5;
const MAX_MODEL_NAME_CHARACTERS = 100;

/**
 * Whether a provider accepts a key: GET its models list, which every provider we speak offers
 * (OpenAI, Mistral, and the compatible servers: Ollama, vLLM, LM Studio, gateways), costs nothing,
 * needs no model name, and is refused with 401 for a wrong key exactly as a generation would be.
 * A one-token completion would also prove the key but costs money, needs a model the workspace
 * may not have access to, and can be refused for reasons that say nothing about the key.
 *
 * Over `upstream` (the egress dispatcher: a base URL the policy refuses fails like a generation
 * does) with redirects not followed, and bounded: the body is read up to a size, the caller's
 * Cancellation sets the deadline.
 */
export async function checkModelsEndpoint(upstream: UpstreamHttp, input: { providerName: string; url: URL; apiKey: string; signal: Cancellation }): Promise<CredentialCheck> {
	const { providerName, url, apiKey, signal } = input;
	let response: UpstreamResponse;
	try {
		response = await upstream.request(url, { method: "GET", headers: { authorization: `Bearer ${apiKey}`, accept: "application/json" }, signal });
	} catch (error) {
		throw signal.aborted ? abortedFailure(providerName, error) : connectionFailure(providerName, error);
	}
	let body: string | undefined;
	try {
		const succeeded = response.statusCode >= 200 && response.statusCode < 300;
		body = await readBounded(response.body, succeeded ? MAX_MODEL_LIST_BYTES : MAX_ERROR_BODY_BYTES);
		if (!succeeded) {
			const headers = response.headers;
			const header = (name: string) => {
				const value = headers[name];
				return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
			};
			throw providerErrorFromStatus({ providerName, status: response.statusCode, body, headers: { get: header }, apiKey });
		}
	} catch (error) {
		if (error instanceof ProviderError) throw error;
		throw signal.aborted ? abortedFailure(providerName, error) : connectionFailure(providerName, error);
	}
	return readModelList(body);
}

/** `{data: [{id}, …]}` (OpenAI's and Mistral's shape); anything else still proves the key was accepted. */
function readModelList(body: string | undefined): CredentialCheck {
	if (body === undefined) return { modelCount: null, models: [] };
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return { modelCount: null, models: [] };
	}
	const data = parsed && typeof parsed === "object" ? (parsed as { data?: unknown }).data : undefined;
	if (!Array.isArray(data)) return { modelCount: null, models: [] };
	const models = data
		.map((model) => (model && typeof model === "object" ? (model as { id?: unknown }).id : undefined))
		.filter((id): id is string => typeof id === "string" && id !== "")
		.slice(0, MODELS_NAMED)
		.map((id) => sanitizeProviderText(id.slice(0, MAX_MODEL_NAME_CHARACTERS)));
	return { modelCount: data.length, models };
}

/** The body as text, or undefined once it passes `limit` (read no further; the connection is closed). */
async function readBounded(body: UpstreamResponse["body"], limit: number): Promise<string | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > limit) {
			body.destroy();
			return undefined;
		}
		chunks.push(chunk);
	}
	return Buffer.concat(chunks).toString("utf8");
}
