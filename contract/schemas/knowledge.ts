import { z } from "../zod";
import { listOf, ZTimestamp } from "./common";

export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;
/** Direct (base64) uploads travel in a JSON body; bigger files use the presigned flow. */
export const MAX_DIRECT_UPLOAD_BYTES = 5 * 1024 * 1024;

const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;
/** Room in a direct-upload body for everything but the base64: the filename, content type and JSON punctuation. */
const DIRECT_UPLOAD_ENVELOPE_BYTES = 64 * 1024;
/** The largest direct-upload body read: a file at the direct limit in base64, with its envelope. */
export const DIRECT_UPLOAD_BODY_BYTES = base64Length(MAX_DIRECT_UPLOAD_BYTES) + DIRECT_UPLOAD_ENVELOPE_BYTES;
/**
 * Direct-upload bodies that could carry a document the platform accepts (up to MAX_DOCUMENT_BYTES)
 * are refused unread as a too-large `contentBase64` (400), not as a too-large body (413): the answer
 * then says what to do, use the presigned flow. Beyond, 413.
 */
export const DIRECT_UPLOAD_REFUSED_BODY_BYTES = base64Length(MAX_DOCUMENT_BYTES) + DIRECT_UPLOAD_ENVELOPE_BYTES;

/** Supported extensions and the content types each accepts (first one is the canonical type). */
export const DOCUMENT_TYPES = {
	pdf: ["application/pdf"],
	txt: ["text/plain"],
	md: ["text/markdown", "text/x-markdown", "text/plain"],
	markdown: ["text/markdown", "text/x-markdown", "text/plain"],
	html: ["text/html"],
	htm: ["text/html"],
	csv: ["text/csv", "application/csv", "text/plain"],
	json: ["application/json", "text/json"],
	docx: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
} as const satisfies Record<string, readonly string[]>;
export type DocumentExtension = keyof typeof DOCUMENT_TYPES;
export const DOCUMENT_EXTENSIONS = Object.keys(DOCUMENT_TYPES) as DocumentExtension[];

const typesTable = DOCUMENT_EXTENSIONS.map((extension) => `\`.${extension}\` (${DOCUMENT_TYPES[extension].join(", ")})`).join("; ");

export const DOCUMENT_STATUSES = ["PENDING", "PROCESSING", "READY", "FAILED"] as const;
export const ZDocumentStatus = z.enum(DOCUMENT_STATUSES).openapi("DocumentStatus", {
	description: "PENDING (waiting for bytes or for a worker), PROCESSING, READY (searchable), FAILED (see failureReason; POST .../retry re-runs it).",
});

export const EMBEDDING_PROVIDERS = ["builtin", "openai", "mistral", "openai-compatible"] as const;
export const ZEmbeddingModel = z
	.object({
		provider: z.enum(EMBEDDING_PROVIDERS),
		model: z.string().min(1).max(200),
		dimensions: z.number().int().positive().optional().openapi({ description: "Vector size; known once the first vector is made." }),
	})
	.openapi("EmbeddingModel", {
		description: "Fixed when the source is created so vector spaces never mix. `builtin` needs no network or credential.",
		example: { provider: "openai", model: "text-embedding-3-small", dimensions: 1536 },
	});

export const ZKnowledgeSource = z
	.object({
		id: z.string().openapi({ example: "ks_01JD3Z8N5Q7YV4T1K2M3P4R5S6" }),
		name: z.string(),
		description: z.string().nullable(),
		embeddingModel: ZEmbeddingModel,
		documentCount: z.number().int().nonnegative(),
		createdAt: ZTimestamp,
		updatedAt: ZTimestamp,
	})
	.openapi("KnowledgeSource");
export type TKnowledgeSource = z.infer<typeof ZKnowledgeSource>;

export const ZCreateKnowledgeSourceRequest = z
	.object({
		name: z.string().trim().min(1).max(200),
		description: z.string().max(2000).optional(),
		embeddingModel: ZEmbeddingModel.omit({ dimensions: true })
			.strict()
			.optional()
			.openapi({
				description:
					"Default: OpenAI `text-embedding-3-small` when the workspace has an OpenAI credential, else `mistral-embed` when it has a Mistral one, else the built-in embedder.",
			}),
	})
	.strict()
	.openapi("CreateKnowledgeSourceRequest", { example: { name: "Help center", description: "Public support articles" } });

export const ZKnowledgeSourceList = listOf(ZKnowledgeSource, "KnowledgeSourceList");

export const ZKnowledgeDocument = z
	.object({
		id: z.string().openapi({ example: "doc_01JD3Z9A1B2C3D4E5F6G7H8J9K" }),
		sourceId: z.string(),
		filename: z.string(),
		contentType: z.string(),
		byteSize: z.number().int().nonnegative(),
		status: ZDocumentStatus,
		failureReason: z.string().nullable().openapi({ description: "Why ingestion failed, for humans; null unless FAILED." }),
		chunkCount: z.number().int().nonnegative(),
		createdAt: ZTimestamp,
		updatedAt: ZTimestamp,
	})
	.openapi("KnowledgeDocument");
export type TKnowledgeDocument = z.infer<typeof ZKnowledgeDocument>;

export const ZKnowledgeDocumentList = listOf(ZKnowledgeDocument, "KnowledgeDocumentList");

const ZFilename = z
	.string()
	.min(1)
	.max(255)
	.refine((name) => !name.includes("/") && !name.includes("\\") && !name.includes("\0"), "Must not contain path separators or NUL")
	.openapi({ example: "handbook.pdf", description: `Supported extensions and content types: ${typesTable}.` });

export const ZDirectUploadRequest = z
	.object({
		filename: ZFilename,
		contentBase64: z.string().openapi({ description: `The file's bytes, base64-encoded; at most ${MAX_DIRECT_UPLOAD_BYTES} bytes once decoded (use the presigned flow beyond).` }),
		contentType: z.string().min(1).max(200).optional().openapi({ description: "Derived from the extension when omitted; must match it when given." }),
	})
	.strict()
	.openapi("DirectUploadRequest", { example: { filename: "notes.md", contentBase64: "IyBOb3Rlcwo=" } });

export const ZPresignedUploadRequest = z
	.object({
		filename: ZFilename,
		contentType: z.string().min(1).max(200).openapi({ example: "application/pdf", description: "Must match the filename's extension." }),
		byteSize: z.number().int().min(1).max(MAX_DOCUMENT_BYTES).openapi({ example: 482133, description: `Exact size of the file, at most ${MAX_DOCUMENT_BYTES} bytes (25 MiB).` }),
	})
	.strict()
	.openapi("PresignedUploadRequest");

export const ZUploadDescriptor = z
	.object({
		url: z.string().url(),
		method: z.literal("PUT"),
		headers: z.record(z.string()).openapi({
			description: "Send exactly these headers with the PUT: `Content-Type` (the declared type) and `Content-Length` (the declared byteSize). No API key.",
			example: { "Content-Type": "application/pdf", "Content-Length": "482133" },
		}),
		expiresAt: ZTimestamp,
	})
	.openapi("UploadDescriptor");

export const ZPresignedUploadResponse = z
	.object({ document: ZKnowledgeDocument, upload: ZUploadDescriptor })
	.openapi("PresignedUpload");

/** Search is a read (spec, Authentication: knowledge:read grants GET), so its input travels in the query string. */
export const ZSearchQuery = z
	.object({
		query: z
			.string()
			.trim()
			.min(1)
			.max(4000)
			.openapi({
				description: "What to search for, percent-encoded; at most 4000 characters (the request line counts toward the 16 KiB header limit).",
				example: "How do I reset my password?",
			}),
		topK: z.coerce.number().int().min(1).max(50).default(5).openapi({ description: "How many chunks to return, 1 to 50 (default 5).", example: 5 }),
		// The type is spelled out: zod-to-openapi asks the schema whether it accepts null, and Number(null) is 0.
		minScore: z.coerce.number().min(0).max(1).optional().openapi({ type: "number", minimum: 0, maximum: 1, description: "Drop results scoring below this (0 to 1)." }),
	})
	.strict();

export const ZChunkLocation = z
	.object({
		page: z.number().int().positive().optional(),
		headingPath: z.array(z.string()).optional(),
		rowRange: z.object({ from: z.number().int(), to: z.number().int() }).optional(),
	})
	.openapi("ChunkLocation", { description: "Where the chunk stands in its document: page (pdf), heading path (md, html, docx), row range (csv)." });

export const ZSearchResult = z
	.object({
		chunkId: z.string(),
		documentId: z.string(),
		filename: z.string(),
		text: z.string(),
		score: z.number().openapi({ description: "Relevance from 0 to 1, higher is better; comparable within one search." }),
		location: ZChunkLocation,
	})
	.openapi("KnowledgeSearchResult");

export const ZSearchResponse = z.object({ data: z.array(ZSearchResult) }).openapi("KnowledgeSearchResponse");
