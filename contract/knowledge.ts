import { authenticatedErrors, type BodyLimit, c, metadata, type RouteMetadata } from "./common";
import { ZDeleted, ZErrorEnvelope, ZIdempotencyHeaders, ZListQuery } from "./schemas/common";
import {
	DIRECT_UPLOAD_BODY_BYTES,
	DIRECT_UPLOAD_REFUSED_BODY_BYTES,
	MAX_DIRECT_UPLOAD_BYTES,
	MAX_DOCUMENT_BYTES,
	ZCreateKnowledgeSourceRequest,
	ZDirectUploadRequest,
	ZKnowledgeDocument,
	ZKnowledgeDocumentList,
	ZKnowledgeSource,
	ZKnowledgeSourceList,
	ZPresignedUploadRequest,
	ZPresignedUploadResponse,
	ZSearchQuery,
	ZSearchResponse,
} from "./schemas/knowledge";
import { z } from "./zod";

const ZSourceId = z.string().min(1).max(64).openapi({ description: "The knowledge source's id (`ks_…`), in the API key's workspace.", example: "ks_01JD3Z8N5Q7YV4T1K2M3P4R5S6" });
const ZDocumentId = z.string().min(1).max(64).openapi({ description: "The document's id (`doc_…`), in that source.", example: "doc_01JD3Z9A1B2C3D4E5F6G7H8J9K" });
const ZSourceParams = z.object({ sourceId: ZSourceId });
const ZDocumentParams = z.object({ sourceId: ZSourceId, documentId: ZDocumentId });

const read = (operationId: string) => metadata({ operationId, tags: ["Knowledge"], scope: "knowledge:read" });
const write = (operationId: string, options: Pick<RouteMetadata, "idempotent" | "bodyLimit"> = {}) =>
	metadata({ operationId, tags: ["Knowledge"], scope: "knowledge:write", ...options });

const notFound = { 404: ZErrorEnvelope } as const;

const DIRECT_UPLOAD_BODY_LIMIT: BodyLimit = {
	readBytes: DIRECT_UPLOAD_BODY_BYTES,
	refuseAsFieldBytes: DIRECT_UPLOAD_REFUSED_BODY_BYTES,
	field: "contentBase64",
	issue: `Too large for a direct upload: it takes files of at most ${MAX_DIRECT_UPLOAD_BYTES} bytes (5 MiB). Upload files of up to ${MAX_DOCUMENT_BYTES} bytes (25 MiB) with the presigned flow: POST /knowledge/sources/{sourceId}/documents`,
};

export const knowledgeContract = c.router(
	{
		createSource: {
			method: "POST",
			path: "/knowledge/sources",
			summary: "Create a knowledge source",
			headers: ZIdempotencyHeaders,
			body: ZCreateKnowledgeSourceRequest,
			responses: { 201: ZKnowledgeSource, 409: ZErrorEnvelope, ...authenticatedErrors },
			metadata: write("createKnowledgeSource", { idempotent: true }),
		},
		listSources: {
			method: "GET",
			path: "/knowledge/sources",
			summary: "List the workspace's knowledge sources",
			query: ZListQuery,
			responses: { 200: ZKnowledgeSourceList, ...authenticatedErrors },
			metadata: read("listKnowledgeSources"),
		},
		getSource: {
			method: "GET",
			path: "/knowledge/sources/:sourceId",
			summary: "Retrieve a knowledge source",
			description: "Not in the original spec; added so a client can read one source without paging the list.",
			pathParams: ZSourceParams,
			responses: { 200: ZKnowledgeSource, ...notFound, ...authenticatedErrors },
			metadata: read("getKnowledgeSource"),
		},
		deleteSource: {
			method: "DELETE",
			path: "/knowledge/sources/:sourceId",
			summary: "Delete a knowledge source",
			description: "Deletes the source and everything in it: documents, chunks, vectors and stored bytes; pending ingestion jobs are cancelled.",
			pathParams: ZSourceParams,
			responses: { 200: ZDeleted, ...notFound, ...authenticatedErrors },
			metadata: write("deleteKnowledgeSource"),
		},
		listDocuments: {
			method: "GET",
			path: "/knowledge/sources/:sourceId/documents",
			summary: "List a source's documents with their status",
			pathParams: ZSourceParams,
			query: ZListQuery,
			responses: { 200: ZKnowledgeDocumentList, ...notFound, ...authenticatedErrors },
			metadata: read("listKnowledgeDocuments"),
		},
		getDocument: {
			method: "GET",
			path: "/knowledge/sources/:sourceId/documents/:documentId",
			summary: "Retrieve a document (poll its status)",
			description: "Not in the original spec; added so a client can poll one document's ingestion status.",
			pathParams: ZDocumentParams,
			responses: { 200: ZKnowledgeDocument, ...notFound, ...authenticatedErrors },
			metadata: read("getKnowledgeDocument"),
		},
		uploadDocument: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents/upload",
			summary: "Upload a small document directly (base64)",
			description:
				`Creates the document as PENDING and ingests it in the background. For files above the direct-upload limit (${MAX_DIRECT_UPLOAD_BYTES} bytes) use the presigned flow. 400 VALIDATION_ERROR for an unsupported extension, a content type that does not match it, base64 that does not decode, or a file too large (over the direct-upload limit, or over what is left of the workspace's storage allowance: named on \`contentBase64\`). A body too large to carry a file within the direct limit (over ${DIRECT_UPLOAD_BODY_BYTES} bytes) is refused unread with the same 400 on \`contentBase64\`, up to ${DIRECT_UPLOAD_REFUSED_BODY_BYTES} bytes (a 25 MiB file in base64); larger bodies are 413.`,
			pathParams: ZSourceParams,
			headers: ZIdempotencyHeaders,
			body: ZDirectUploadRequest,
			responses: { 201: ZKnowledgeDocument, 409: ZErrorEnvelope, ...notFound, ...authenticatedErrors },
			metadata: write("uploadKnowledgeDocument", { idempotent: true, bodyLimit: DIRECT_UPLOAD_BODY_LIMIT }),
		},
		createDocumentUpload: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents",
			summary: "Start a presigned upload (step 1 of 3)",
			description:
				"Creates the document as PENDING and returns where to PUT its bytes (step 2, no API key, exactly the returned headers), then call .../complete (step 3). 400 VALIDATION_ERROR on `byteSize` when the document would exceed the workspace's storage allowance.",
			pathParams: ZSourceParams,
			headers: ZIdempotencyHeaders,
			body: ZPresignedUploadRequest,
			responses: { 201: ZPresignedUploadResponse, 409: ZErrorEnvelope, ...notFound, ...authenticatedErrors },
			metadata: write("createKnowledgeDocumentUpload", { idempotent: true }),
		},
		completeDocumentUpload: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents/:documentId/complete",
			summary: "Confirm a presigned upload and enqueue ingestion (step 3 of 3)",
			description:
				"400 INVALID_REQUEST when the bytes are missing or differ from the declared size (the document stays PENDING), and when the upload was already completed.",
			pathParams: ZDocumentParams,
			body: c.noBody(),
			responses: { 200: ZKnowledgeDocument, ...notFound, ...authenticatedErrors },
			metadata: write("completeKnowledgeDocumentUpload"),
		},
		retryDocument: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents/:documentId/retry",
			summary: "Re-run ingestion of a FAILED document",
			description: "The document goes back to PENDING and is ingested again. 400 INVALID_REQUEST when it is not FAILED (the message says its status).",
			pathParams: ZDocumentParams,
			body: c.noBody(),
			responses: { 200: ZKnowledgeDocument, ...notFound, ...authenticatedErrors },
			metadata: write("retryKnowledgeDocument"),
		},
		deleteDocument: {
			method: "DELETE",
			path: "/knowledge/sources/:sourceId/documents/:documentId",
			summary: "Delete a document and its stored bytes",
			pathParams: ZDocumentParams,
			responses: { 200: ZDeleted, ...notFound, ...authenticatedErrors },
			metadata: write("deleteKnowledgeDocument"),
		},
		search: {
			method: "GET",
			path: "/knowledge/sources/:sourceId/search",
			summary: "Search a source (hybrid: full text fused with vector similarity)",
			description:
				"Not in the original spec; a read, so a GET under knowledge:read like every other read. Searches READY documents only. 400 VALIDATION_ERROR names each bad query parameter (`query`, `topK`, `minScore`, or an unknown one). The query is embedded with the source's embedding model on the workspace's credential, in one attempt; a provider failure answers at once as a generation's does, naming the provider in `message`: credential rejected or removed 400 INVALID_REQUEST; rate limit 429 RATE_LIMITED with the provider's Retry-After; 5xx, a malformed answer or vectors of another size 502 INTERNAL_ERROR; unreachable 503 INTERNAL_ERROR; no answer within 15 s 504 INTERNAL_ERROR.",
			pathParams: ZSourceParams,
			query: ZSearchQuery,
			responses: { 200: ZSearchResponse, ...notFound, ...authenticatedErrors, 502: ZErrorEnvelope, 503: ZErrorEnvelope, 504: ZErrorEnvelope },
			metadata: read("searchKnowledgeSource"),
		},
	},
	{ strictStatusCodes: true },
);
