/**
 * PlatformClient: the hand-written surface of the SDK. Resources mirror the contract (runtime,
 * assistants, knowledge.sources, knowledge.documents) with create/retrieve/list/delete verbs, as in
 * openai-node. Plain calls go through the generated functions; only what they cannot do is written
 * here: Server-Sent Events and the presigned upload's PUT to object storage.
 */
import { PlatformError } from "./errors";
import * as api from "./generated/api";
import { type ClientConfig, openStream, type PlatformRequestInit, type RequestOptions, sendRequest } from "./http";
import { Stream } from "./streaming";

/**
 * The managed service's address, used when neither `baseURL` nor PLATFORM_BASE_URL is set
 * (spec, Client SDK behaviour). Self-hosted deployments set their own.
 */
export const DEFAULT_BASE_URL = "https://api.example.com";
/** Matches the longest generation the API allows (config.timeoutMs at most 600 000). */
export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;

export const API_KEY_ENV = "PLATFORM_API_KEY";
export const BASE_URL_ENV = "PLATFORM_BASE_URL";

export interface ClientOptions {
	/** Workspace API key (`csk_live_...`). Default: the PLATFORM_API_KEY environment variable. */
	apiKey?: string;
	/** Default: the PLATFORM_BASE_URL environment variable, else DEFAULT_BASE_URL. */
	baseURL?: string;
	/** Per attempt. Default 10 minutes. For streams it covers the wait for the response headers. */
	timeoutMs?: number;
	/** Retries of 408, 429 and 5xx answers and of connection failures (not of timeouts). Default 2. */
	maxRetries?: number;
	/** A fetch implementation, e.g. for tests or proxies. Default: the global fetch. */
	fetch?: typeof globalThis.fetch;
}

export type { RequestOptions };

function readEnv(name: string): string | undefined {
	const value = typeof process === "undefined" ? undefined : process.env[name];
	return value?.trim() || undefined;
}

/** Path segments are interpolated by the generated code as they are; ids must not change the path. */
function segment(value: string): string {
	return encodeURIComponent(value);
}

export class PlatformClient {
	readonly baseURL: string;
	readonly runtime: RuntimeResource;
	readonly assistants: AssistantsResource;
	readonly knowledge: KnowledgeResource;
	private readonly transport: Transport;

	constructor(options: ClientOptions = {}) {
		const apiKey = options.apiKey ?? readEnv(API_KEY_ENV);
		if (!apiKey) {
			throw new PlatformError(`No API key: pass { apiKey } to PlatformClient or set the ${API_KEY_ENV} environment variable.`);
		}
		const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
		const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
		if (!(timeoutMs > 0)) throw new PlatformError("timeoutMs must be a positive number of milliseconds.");
		if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new PlatformError("maxRetries must be a non-negative integer.");
		const fetchImplementation = options.fetch ?? globalThis.fetch;
		if (typeof fetchImplementation !== "function") throw new PlatformError("No fetch implementation: pass { fetch }.");

		this.baseURL = (options.baseURL ?? readEnv(BASE_URL_ENV) ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
		this.transport = new Transport({ apiKey, baseURL: this.baseURL, timeoutMs, maxRetries, fetch: fetchImplementation });
		this.runtime = new RuntimeResource(this.transport);
		this.assistants = new AssistantsResource(this.transport);
		this.knowledge = new KnowledgeResource(this.transport);
	}

	/** GET /healthz: liveness and database readiness; needs no scope. */
	health(options?: RequestOptions): Promise<api.Health> {
		return api.getHealth(this.transport.init(options));
	}
}

/** Turns per-call options into what the generated functions forward to the mutator. */
class Transport {
	constructor(private readonly config: ClientConfig) {}

	init(options: RequestOptions = {}): PlatformRequestInit {
		return {
			client: this.config,
			signal: options.signal,
			idempotencyKey: options.idempotencyKey,
			timeoutMs: options.timeoutMs,
			maxRetries: options.maxRetries,
		};
	}

	/** POSTs `body` to a streaming endpoint; errors before the stream opens are thrown as typed errors. */
	async stream(path: string, body: unknown, options: RequestOptions = {}): Promise<Stream> {
		const controller = new AbortController();
		const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
		const response = await openStream(path, {
			...this.init(options),
			signal,
			method: "POST",
			headers: { "Content-Type": "application/json" },
			body: JSON.stringify(body),
		});
		return new Stream(response, controller, signal);
	}

	/** Presigned upload, step 2: the bytes go to object storage, with exactly its headers and no API key. */
	async put(url: string, headers: Record<string, string>, bytes: Uint8Array, options: RequestOptions = {}): Promise<void> {
		await sendRequest(
			url,
			{ ...this.init(options), method: "PUT", headers, body: bytes },
			{ authenticate: false, read: async (response) => void (await response.arrayBuffer()) },
		);
	}
}

export class RuntimeResource {
	constructor(private readonly transport: Transport) {}

	/** POST /runtime/execute: an ad-hoc generation (provider, model and messages in the request). */
	execute(body: api.ExecuteRequest, options?: RequestOptions): Promise<api.GenerationResult> {
		return api.executeGeneration(body, undefined, this.transport.init(options));
	}

	/** POST /runtime/stream: the same, streamed. */
	stream(body: api.ExecuteRequest, options?: RequestOptions): Promise<Stream> {
		return this.transport.stream(api.getStreamGenerationUrl(), body, options);
	}
}

/** The input of a deployed assistant, or just its `input` text. */
export type AssistantInput = api.AssistantRunInput | string;

function toRunInput(input: AssistantInput): api.AssistantRunInput {
	return typeof input === "string" ? { input } : input;
}

export class AssistantsResource {
	constructor(private readonly transport: Transport) {}

	/** POST /runtime/assistants/{slug}: runs the version deployed to `environment` (default production). */
	run(slug: string, input: AssistantInput, options?: RequestOptions): Promise<api.GenerationResult> {
		return api.runAssistant(segment(slug), toRunInput(input), undefined, this.transport.init(options));
	}

	/** POST /runtime/assistants/{slug}/stream: the same, streamed. */
	stream(slug: string, input: AssistantInput, options?: RequestOptions): Promise<Stream> {
		return this.transport.stream(api.getStreamAssistantUrl(segment(slug)), toRunInput(input), options);
	}
}

export class KnowledgeResource {
	readonly sources: KnowledgeSourcesResource;
	readonly documents: KnowledgeDocumentsResource;

	constructor(transport: Transport) {
		this.sources = new KnowledgeSourcesResource(transport);
		this.documents = new KnowledgeDocumentsResource(transport);
	}
}

export class KnowledgeSourcesResource {
	constructor(private readonly transport: Transport) {}

	create(body: api.CreateKnowledgeSourceRequest, options?: RequestOptions): Promise<api.KnowledgeSource> {
		return api.createKnowledgeSource(body, undefined, this.transport.init(options));
	}

	/** One page; pass the answer's `nextCursor` as `cursor` for the next. */
	list(params?: api.ListKnowledgeSourcesParams, options?: RequestOptions): Promise<api.KnowledgeSourceList> {
		return api.listKnowledgeSources(params, this.transport.init(options));
	}

	retrieve(sourceId: string, options?: RequestOptions): Promise<api.KnowledgeSource> {
		return api.getKnowledgeSource(segment(sourceId), this.transport.init(options));
	}

	/** Deletes the source with all its documents. */
	delete(sourceId: string, options?: RequestOptions): Promise<api.Deleted> {
		return api.deleteKnowledgeSource(segment(sourceId), this.transport.init(options));
	}

	/** Hybrid search over the source's READY documents (scope knowledge:read). */
	search(sourceId: string, body: api.KnowledgeSearchRequest, options?: RequestOptions): Promise<api.KnowledgeSearchResponse> {
		return api.searchKnowledgeSource(segment(sourceId), body, this.transport.init(options));
	}
}

/** A file's bytes: binary, or text (encoded as UTF-8). */
export type FileContent = Uint8Array | ArrayBuffer | Blob | string;

export interface FileUpload {
	filename: string;
	content: FileContent;
	/** Derived from the filename's extension when omitted. */
	contentType?: string;
}

/** Canonical content type per supported extension (spec, Knowledge, rule 1); the server has the last word. */
const CONTENT_TYPES: Record<string, string> = {
	pdf: "application/pdf",
	txt: "text/plain",
	md: "text/markdown",
	markdown: "text/markdown",
	html: "text/html",
	htm: "text/html",
	csv: "text/csv",
	json: "application/json",
	docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

async function toBytes(content: FileContent): Promise<Uint8Array> {
	if (typeof content === "string") return new TextEncoder().encode(content);
	if (content instanceof Uint8Array) return content;
	if (content instanceof ArrayBuffer) return new Uint8Array(content);
	return new Uint8Array(await content.arrayBuffer());
}

function toBase64(bytes: Uint8Array): string {
	if (typeof Buffer !== "undefined") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
	let binary = "";
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return btoa(binary);
}

export class KnowledgeDocumentsResource {
	constructor(private readonly transport: Transport) {}

	/** Direct upload of a small document: the bytes travel base64-encoded in the JSON body. */
	async upload(sourceId: string, file: FileUpload, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		const body: api.DirectUploadRequest = { filename: file.filename, contentBase64: toBase64(await toBytes(file.content)) };
		if (file.contentType) body.contentType = file.contentType;
		return api.uploadKnowledgeDocument(segment(sourceId), body, undefined, this.transport.init(options));
	}

	/** Presigned upload, step 1: creates the PENDING document and returns where to PUT its bytes. */
	createUpload(sourceId: string, body: api.PresignedUploadRequest, options?: RequestOptions): Promise<api.PresignedUpload> {
		return api.createKnowledgeDocumentUpload(segment(sourceId), body, undefined, this.transport.init(options));
	}

	/** Presigned upload, step 3: confirms the bytes and enqueues ingestion. */
	complete(sourceId: string, documentId: string, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		return api.completeKnowledgeDocumentUpload(segment(sourceId), segment(documentId), this.transport.init(options));
	}

	/**
	 * The whole presigned flow for files of any supported size: create the upload, PUT the bytes to
	 * object storage (with its headers, without the API key), complete. Resolves with the PENDING document.
	 */
	async uploadFile(sourceId: string, file: FileUpload, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		const bytes = await toBytes(file.content);
		const extension = file.filename.includes(".") ? file.filename.split(".").pop()!.toLowerCase() : "";
		const contentType = file.contentType ?? CONTENT_TYPES[extension];
		if (!contentType) throw new PlatformError(`Cannot tell the content type of ${JSON.stringify(file.filename)}; pass contentType.`);
		const { document, upload } = await this.createUpload(sourceId, { filename: file.filename, contentType, byteSize: bytes.byteLength }, options);
		// The caller's idempotency key belongs to step 1; the other steps are requests of their own.
		const laterSteps: RequestOptions = { ...options, idempotencyKey: undefined };
		await this.transport.put(upload.url, upload.headers, bytes, laterSteps);
		return this.complete(sourceId, document.id, laterSteps);
	}

	/** Re-runs ingestion of a FAILED document. */
	retry(sourceId: string, documentId: string, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		return api.retryKnowledgeDocument(segment(sourceId), segment(documentId), this.transport.init(options));
	}

	/** One document, e.g. to poll its status until READY or FAILED. */
	retrieve(sourceId: string, documentId: string, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		return api.getKnowledgeDocument(segment(sourceId), segment(documentId), this.transport.init(options));
	}

	/** One page of the source's documents; pass `nextCursor` as `cursor` for the next. */
	list(sourceId: string, params?: api.ListKnowledgeDocumentsParams, options?: RequestOptions): Promise<api.KnowledgeDocumentList> {
		return api.listKnowledgeDocuments(segment(sourceId), params, this.transport.init(options));
	}

	/** Deletes the document and its stored bytes. */
	delete(sourceId: string, documentId: string, options?: RequestOptions): Promise<api.Deleted> {
		return api.deleteKnowledgeDocument(segment(sourceId), segment(documentId), this.transport.init(options));
	}
}
