import { authenticatedErrors, c, metadata } from "./common";
import { ZDeleted, ZErrorEnvelope, ZIdempotencyHeaders, ZListQuery } from "./schemas/common";
import {
	ZCreateKnowledgeSourceRequest,
	ZDirectUploadRequest,
	ZKnowledgeDocument,
	ZKnowledgeDocumentList,
	ZKnowledgeSource,
	ZKnowledgeSourceList,
	ZPresignedUploadRequest,
	ZPresignedUploadResponse,
	ZSearchRequest,
	ZSearchResponse,
} from "./schemas/knowledge";
import { z } from "./zod";

const ZId = z.string().min(1).max(64);
const ZSourceParams = z.object({ sourceId: ZId });
const ZDocumentParams = z.object({ sourceId: ZId, documentId: ZId });

const read = (operationId: string) => metadata({ operationId, tags: ["Knowledge"], scope: "knowledge:read" });
const write = (operationId: string, options: { idempotent?: boolean } = {}) =>
	metadata({ operationId, tags: ["Knowledge"], scope: "knowledge:write", ...options });

const notFound = { 404: ZErrorEnvelope } as const;

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
				"Creates the document as PENDING and ingests it in the background. For files above the direct-upload limit use the presigned flow. 400 VALIDATION_ERROR for an unsupported extension, a content type that does not match it, a file too large or base64 that does not decode.",
			pathParams: ZSourceParams,
			headers: ZIdempotencyHeaders,
			body: ZDirectUploadRequest,
			responses: { 201: ZKnowledgeDocument, 409: ZErrorEnvelope, ...notFound, ...authenticatedErrors },
			metadata: write("uploadKnowledgeDocument", { idempotent: true }),
		},
		createDocumentUpload: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents",
			summary: "Start a presigned upload (step 1 of 3)",
			description:
				"Creates the document as PENDING and returns where to PUT its bytes (step 2, no API key, exactly the returned headers), then call .../complete (step 3).",
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
			description: "400 INVALID_REQUEST when the bytes are missing or differ from the declared size (the document stays PENDING); 409 INVALID_STATE when already completed.",
			pathParams: ZDocumentParams,
			body: c.noBody(),
			responses: { 200: ZKnowledgeDocument, 409: ZErrorEnvelope, ...notFound, ...authenticatedErrors },
			metadata: write("completeKnowledgeDocumentUpload"),
		},
		retryDocument: {
			method: "POST",
			path: "/knowledge/sources/:sourceId/documents/:documentId/retry",
			summary: "Re-run ingestion of a FAILED document",
			description: "The document goes back to PENDING and is ingested again. 409 INVALID_STATE when it is not FAILED.",
			pathParams: ZDocumentParams,
			body: c.noBody(),
			responses: { 200: ZKnowledgeDocument, 409: ZErrorEnvelope, ...notFound, ...authenticatedErrors },
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
			method: "POST",
			path: "/knowledge/sources/:sourceId/search",
			summary: "Search a source (hybrid: full text fused with vector similarity)",
			description: "Not in the original spec. Needs knowledge:read. Searches READY documents only.",
			pathParams: ZSourceParams,
			body: ZSearchRequest,
			responses: { 200: ZSearchResponse, ...notFound, ...authenticatedErrors },
			metadata: metadata({ operationId: "searchKnowledgeSource", tags: ["Knowledge"], scope: "knowledge:read" }),
		},
	},
	{ strictStatusCodes: true },
);
