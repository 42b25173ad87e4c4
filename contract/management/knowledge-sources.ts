import { c, metadata } from "../common";
import { ZKnowledgeDocumentInput, ZKnowledgeSourceInput } from "../inputs/knowledge";
import { workspaceId } from "../inputs/common";
import { listOf, ZDeleted, ZErrorEnvelope, ZListQuery } from "../schemas/common";
import {
	ZCreateKnowledgeSourceRequest,
	ZKnowledgeDocument,
	ZKnowledgeSource,
	ZPresignedUploadRequest,
	ZPresignedUploadResponse,
	ZSearchQuery,
	ZSearchResponse,
} from "../schemas/knowledge";
import { z } from "../zod";

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const tags = ["Knowledge"];
const BASE = "/management/workspaces/:workspaceId/knowledge-sources";

export const ZKnowledgeDocumentDownload = z
	.object({
		documentId: z.string(),
		filename: z.string(),
		contentType: z.string(),
		byteSize: z.number().int(),
		encoding: z.enum(["text", "base64"]),
		content: z.string(),
	})
	.openapi("KnowledgeDocumentDownload");

/**
 * Knowledge in the dashboard: sources, their documents with their status, the presigned upload
 * (the bytes go to the upload URL the answer names, as with the knowledge API), retry, delete,
 * download and the search tester. Every route calls the knowledge API's use case.
 */
export const knowledgeSourcesContract = c.router({
	listKnowledgeSources: {
		method: "GET",
		path: BASE,
		summary: "The workspace's knowledge sources, newest first, a page at a time",
		pathParams: z.object({ workspaceId }),
		query: ZListQuery,
		responses: { 200: listOf(ZKnowledgeSource, "KnowledgeSourceList"), ...errors },
		metadata: metadata({ operationId: "listKnowledgeSources", tags, session: "required" }),
	},
	createKnowledgeSource: {
		method: "POST",
		path: BASE,
		summary: "A new knowledge source with the embedding model it will use for its life",
		pathParams: z.object({ workspaceId }),
		body: ZCreateKnowledgeSourceRequest,
		responses: { 201: ZKnowledgeSource, ...errors },
		metadata: metadata({ operationId: "createKnowledgeSource", tags, session: "required" }),
	},
	getKnowledgeSource: {
		method: "GET",
		path: `${BASE}/:sourceId`,
		summary: "One knowledge source with its document count",
		pathParams: ZKnowledgeSourceInput,
		responses: { 200: ZKnowledgeSource, ...errors },
		metadata: metadata({ operationId: "getKnowledgeSource", tags, session: "required" }),
	},
	deleteKnowledgeSource: {
		method: "DELETE",
		path: `${BASE}/:sourceId`,
		summary: "Deletes the source with all its documents, chunks, vectors and stored bytes",
		pathParams: ZKnowledgeSourceInput,
		responses: { 200: ZDeleted, ...errors },
		metadata: metadata({ operationId: "deleteKnowledgeSource", tags, session: "required" }),
	},
	listKnowledgeDocuments: {
		method: "GET",
		path: `${BASE}/:sourceId/documents`,
		summary: "A source's documents with their ingestion status, newest first",
		pathParams: ZKnowledgeSourceInput,
		query: ZListQuery,
		responses: { 200: listOf(ZKnowledgeDocument, "KnowledgeDocumentList"), ...errors },
		metadata: metadata({ operationId: "listKnowledgeDocuments", tags, session: "required" }),
	},
	createKnowledgeDocumentUpload: {
		method: "POST",
		path: `${BASE}/:sourceId/documents`,
		summary: "Starts a presigned upload: a PENDING document and where to PUT its bytes (then complete it)",
		pathParams: ZKnowledgeSourceInput,
		body: ZPresignedUploadRequest,
		responses: { 201: ZPresignedUploadResponse, ...errors },
		metadata: metadata({ operationId: "createKnowledgeDocumentUpload", tags, session: "required" }),
	},
	completeKnowledgeDocumentUpload: {
		method: "POST",
		path: `${BASE}/:sourceId/documents/:documentId/complete`,
		summary: "Confirms the bytes arrived and queues the document's ingestion",
		pathParams: ZKnowledgeDocumentInput,
		body: c.noBody(),
		responses: { 200: ZKnowledgeDocument, ...errors },
		metadata: metadata({ operationId: "completeKnowledgeDocumentUpload", tags, session: "required" }),
	},
	retryKnowledgeDocument: {
		method: "POST",
		path: `${BASE}/:sourceId/documents/:documentId/retry`,
		summary: "Ingests a FAILED document again",
		pathParams: ZKnowledgeDocumentInput,
		body: c.noBody(),
		responses: { 200: ZKnowledgeDocument, ...errors },
		metadata: metadata({ operationId: "retryKnowledgeDocument", tags, session: "required" }),
	},
	deleteKnowledgeDocument: {
		method: "DELETE",
		path: `${BASE}/:sourceId/documents/:documentId`,
		summary: "Deletes one document with its chunks, vectors and stored bytes",
		pathParams: ZKnowledgeDocumentInput,
		responses: { 200: ZDeleted, ...errors },
		metadata: metadata({ operationId: "deleteKnowledgeDocument", tags, session: "required" }),
	},
	downloadKnowledgeDocument: {
		method: "GET",
		path: `${BASE}/:sourceId/documents/:documentId/download`,
		summary: "The stored file as uploaded: text types as text, others base64-encoded",
		pathParams: ZKnowledgeDocumentInput,
		responses: { 200: ZKnowledgeDocumentDownload, 413: ZErrorEnvelope, ...errors },
		metadata: metadata({ operationId: "downloadKnowledgeDocument", tags, session: "required" }),
	},
	searchKnowledgeSource: {
		method: "GET",
		path: `${BASE}/:sourceId/search`,
		summary: "Searches the source's READY documents: the best chunks with score, document and page or heading",
		pathParams: ZKnowledgeSourceInput,
		query: ZSearchQuery,
		responses: { 200: ZSearchResponse, ...errors },
		metadata: metadata({ operationId: "searchKnowledgeSource", tags, session: "required" }),
	},
});

/** What the upload page checks before sending a byte: the same types and size the knowledge API enforces. */
export { DOCUMENT_TYPES, type DocumentExtension, MAX_DOCUMENT_BYTES, type TKnowledgeDocument, type TKnowledgeSource, ZSearchResult } from "../schemas/knowledge";
