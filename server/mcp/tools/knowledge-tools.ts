import { z } from "zod";
import { ZKnowledgeDocument, ZKnowledgeSource, ZSearchResult } from "../../../contract/schemas/knowledge";
import { createKnowledgeSource } from "../../modules/knowledge/create-knowledge-source";
import { deleteKnowledgeDocument } from "../../modules/knowledge/delete-knowledge-document";
import { deleteKnowledgeSource } from "../../modules/knowledge/delete-knowledge-source";
import { downloadKnowledgeDocument } from "../../modules/knowledge/download-knowledge-document";
import { listKnowledgeDocuments } from "../../modules/knowledge/list-knowledge-documents";
import { listKnowledgeSources } from "../../modules/knowledge/list-knowledge-sources";
import { searchKnowledgeSource } from "../../modules/knowledge/search-knowledge-source";
import { uploadKnowledgeDocument } from "../../modules/knowledge/upload-knowledge-document";
import { DESTRUCTIVE, defineTool, type McpTool, READ_ONLY, WRITES } from "../tool-definition";
import { deleted, nullable, timestamp, workspaceId } from "./fields";

const sourceId = z.string().min(1).max(100).describe("A knowledge source id (list_knowledge_sources)");
const documentId = z.string().min(1).max(100).describe("A document id (list_knowledge_documents)");
const limit = z.number().int().min(1).max(100).optional().describe("Page size, 1 to 100 (default 20)");
const cursor = z.string().min(1).max(200).optional().describe("nextCursor from the previous page");
/**
 * The API's schemas with their nullable strings and shared timestamps spelled portably for tool
 * schemas (fields.ts says why); the values are the same.
 */
const source = ZKnowledgeSource.extend({ description: nullable(z.string()), createdAt: timestamp(), updatedAt: timestamp() });
const document = ZKnowledgeDocument.extend({
	failureReason: nullable(z.string()).describe("Why ingestion failed, for humans; null unless FAILED"),
	createdAt: timestamp(),
	updatedAt: timestamp(),
});
const page = { hasMore: z.boolean().describe("Whether another page follows"), nextCursor: nullable(z.string()).describe("Pass as cursor for the next page") };

export const KNOWLEDGE_TOOLS: McpTool[] = [
	defineTool({
		name: "list_knowledge_sources",
		title: "List knowledge sources",
		description: "The workspace's knowledge sources (collections of documents searched together), newest first.",
		inputSchema: { workspaceId, limit, cursor },
		outputSchema: { sources: z.array(source), ...page },
		annotations: READ_ONLY,
		permission: "knowledge:read",
		run: async (context, input) => {
			const found = await listKnowledgeSources(context, { ...input, limit: input.limit ?? 20 });
			return { sources: found.data, hasMore: found.hasMore, nextCursor: found.nextCursor };
		},
	}),
	defineTool({
		name: "list_knowledge_documents",
		title: "List documents",
		description: "The documents of a knowledge source with their ingestion status (PENDING, PROCESSING, READY, FAILED), newest first.",
		inputSchema: { workspaceId, sourceId, limit, cursor },
		outputSchema: { documents: z.array(document), ...page },
		annotations: READ_ONLY,
		permission: "knowledge:read",
		run: async (context, input) => {
			const found = await listKnowledgeDocuments(context, { ...input, limit: input.limit ?? 20 });
			return { documents: found.data, hasMore: found.hasMore, nextCursor: found.nextCursor };
		},
	}),
	defineTool({
		name: "search_knowledge",
		title: "Search knowledge",
		description: "Searches the READY documents of a knowledge source; returns the best chunks with their document, score (0 to 1) and location.",
		inputSchema: {
			workspaceId,
			sourceId,
			query: z.string().min(1).max(4000).describe("What to look for, in natural language"),
			topK: z.number().int().min(1).max(50).optional().describe("How many chunks (default 5)"),
			minScore: z.number().min(0).max(1).optional().describe("Leave out chunks scoring below this"),
		},
		outputSchema: { results: z.array(ZSearchResult) },
		annotations: READ_ONLY,
		permission: "knowledge:read",
		run: async (context, input) => ({ results: await searchKnowledgeSource(context, input) }),
	}),
	defineTool({
		name: "download_knowledge_document",
		title: "Download a document",
		description: "The stored file of a document as uploaded: text files (text, markdown, csv, html, json) as text, others (pdf, docx) base64-encoded.",
		inputSchema: { workspaceId, sourceId, documentId },
		outputSchema: {
			documentId: z.string(),
			filename: z.string(),
			contentType: z.string(),
			byteSize: z.number().int(),
			encoding: z.enum(["text", "base64"]).describe("How content is encoded"),
			content: z.string().describe("The file: text, or base64 of its bytes"),
		},
		annotations: READ_ONLY,
		permission: "knowledge:read",
		run: (context, input) => downloadKnowledgeDocument(context, input),
	}),
	defineTool({
		name: "create_knowledge_source",
		title: "Create a knowledge source",
		description: "Creates a knowledge source. The embedding model is fixed for its life; default: the workspace's OpenAI or Mistral credential's model, else the built-in embedder.",
		inputSchema: {
			workspaceId,
			name: z.string().min(1).max(200).describe("Display name"),
			description: z.string().max(2000).optional().describe("What the documents are about"),
			embeddingModel: z
				.object({
					provider: z.enum(["builtin", "openai", "mistral", "openai-compatible"]).describe("Embedding provider"),
					model: z.string().min(1).max(200).describe("Embedding model, e.g. text-embedding-3-small or builtin-hash-v1"),
				})
				.strict()
				.optional()
				.describe("Leave out for the default"),
		},
		outputSchema: source.shape,
		annotations: WRITES,
		permission: "knowledge:write",
		run: (context, input) => createKnowledgeSource(context, input),
	}),
	defineTool({
		name: "add_knowledge_text",
		title: "Add a text document",
		description:
			"Adds an inline text or markdown document to a knowledge source through the same ingestion as uploads; it is searchable once list_knowledge_documents shows it READY. Binary files (pdf, docx) go through the API upload.",
		inputSchema: {
			workspaceId,
			sourceId,
			filename: z.string().min(1).max(255).describe("A name ending in .md, .markdown or .txt, e.g. 'returns-policy.md'"),
			text: z.string().min(1).max(5_000_000).describe("The document's content"),
		},
		outputSchema: document.shape,
		annotations: WRITES,
		permission: "knowledge:write",
		run: (context, input) =>
			uploadKnowledgeDocument(context, {
				workspaceId: input.workspaceId,
				sourceId: input.sourceId,
				filename: input.filename,
				text: input.text,
				contentType: /\.(md|markdown)$/i.test(input.filename) ? "text/markdown" : "text/plain",
			}),
	}),
	defineTool({
		name: "delete_knowledge_source",
		title: "Delete a knowledge source",
		description: "Deletes a knowledge source with all its documents, chunks and vectors. Assistants that attach it stop retrieving from it.",
		inputSchema: { workspaceId, sourceId },
		outputSchema: { id: z.string(), ...deleted },
		annotations: DESTRUCTIVE,
		permission: "knowledge:write",
		run: (context, input) => deleteKnowledgeSource(context, input),
	}),
	defineTool({
		name: "delete_knowledge_document",
		title: "Delete a document",
		description: "Deletes one document with its chunks and vectors; searches stop returning it at once.",
		inputSchema: { workspaceId, sourceId, documentId },
		outputSchema: { id: z.string(), ...deleted },
		annotations: DESTRUCTIVE,
		permission: "knowledge:write",
		run: (context, input) => deleteKnowledgeDocument(context, input),
	}),
];
