/** Knowledge sources, their documents, and search. */
import { writeFileSync } from "node:fs";
import { type CommandSpec, cursorFlag, flag, limitFlag, workspaceFlag } from "./command-spec";

const sourceFlag = flag("source", "string", "The knowledge source's id (admin knowledge source list)", { key: "sourceId", placeholder: "ID", required: true });
const documentFlag = flag("document", "string", "The document's id (admin knowledge document list)", { key: "documentId", placeholder: "ID", required: true });
const SOURCE_COLUMNS = ["id", "name", "documentCount", "description", "createdAt"] as const;
const DOCUMENT_COLUMNS = ["id", "filename", "status", "chunkCount", "byteSize", "createdAt"] as const;

/** With --output the file is written there; text files otherwise go to stdout as they are. */
function printDownload(result: Record<string, unknown>, values: Record<string, unknown>, json: boolean): boolean {
	const content = String(result.content ?? "");
	const bytes = result.encoding === "base64" ? Buffer.from(content, "base64") : Buffer.from(content, "utf8");
	if (typeof values.output === "string") {
		writeFileSync(values.output, bytes);
		if (json) return false;
		process.stderr.write(`Wrote ${bytes.length} bytes to ${values.output}\n`);
		return true;
	}
	if (json) return false;
	if (result.encoding !== "text") {
		process.stderr.write(`${String(result.filename)} is binary (${String(result.contentType)}): pass --output PATH to save it\n`);
		return true;
	}
	process.stdout.write(content);
	return true;
}

export const KNOWLEDGE_COMMANDS: CommandSpec[] = [
	{
		path: "knowledge source list",
		summary: "A workspace's knowledge sources, newest first",
		tool: "list_knowledge_sources",
		flags: [workspaceFlag, limitFlag("20"), cursorFlag],
		table: { list: "sources", columns: SOURCE_COLUMNS, empty: "No knowledge sources." },
	},
	{
		path: "knowledge source get",
		summary: "One knowledge source with its document count",
		useCase: "getKnowledgeSource",
		flags: [workspaceFlag, sourceFlag],
	},
	{
		path: "knowledge source create",
		summary: "A new knowledge source (its embedding model is fixed for its life)",
		details: "Without --embedding-provider and --embedding-model: the workspace's OpenAI or Mistral credential's model, else the built-in embedder.",
		tool: "create_knowledge_source",
		flags: [
			workspaceFlag,
			flag("name", "string", "Display name", { placeholder: "NAME", required: true }),
			flag("description", "string", "What the documents are about"),
			flag("embedding-provider", "string", "Embedding provider (with --embedding-model)", { key: "embeddingModel.provider", choices: ["builtin", "openai", "mistral", "openai-compatible"] }),
			flag("embedding-model", "string", "Embedding model, e.g. text-embedding-3-small (with --embedding-provider)", { key: "embeddingModel.model", placeholder: "MODEL" }),
		],
	},
	{
		path: "knowledge source delete",
		summary: "Delete a knowledge source with all its documents, chunks and vectors",
		tool: "delete_knowledge_source",
		flags: [workspaceFlag, sourceFlag],
	},
	{
		path: "knowledge document list",
		summary: "A source's documents with their ingestion status, newest first",
		tool: "list_knowledge_documents",
		flags: [workspaceFlag, sourceFlag, limitFlag("20"), cursorFlag],
		table: { list: "documents", columns: DOCUMENT_COLUMNS, empty: "No documents." },
	},
	{
		path: "knowledge document get",
		summary: "One document and its ingestion status",
		useCase: "getKnowledgeDocument",
		flags: [workspaceFlag, sourceFlag, documentFlag],
	},
	{
		path: "knowledge document add",
		summary: "Add a text or markdown document; searchable once its status is READY",
		details: "Binary files (pdf, docx) go through the knowledge API's upload.",
		tool: "add_knowledge_text",
		flags: [
			workspaceFlag,
			sourceFlag,
			flag("filename", "string", "A name ending in .md, .markdown or .txt", { placeholder: "NAME", required: true }),
			flag("text", "string", "The document's content"),
			flag("file", "file", "A file whose text is the document's content", { key: "text" }),
		],
		oneOf: [["text", "file"]],
	},
	{
		path: "knowledge document download",
		summary: "A document's stored file, as uploaded",
		details: "Readable output: text files as they are; --output PATH writes the file (needed for pdf and docx). With --json: the file in `content` (text or base64).",
		tool: "download_knowledge_document",
		flags: [workspaceFlag, sourceFlag, documentFlag, flag("output", "string", "Write the file here", { key: null, placeholder: "PATH" })],
		print: printDownload,
	},
	{
		path: "knowledge document delete",
		summary: "Delete a document with its chunks and vectors",
		tool: "delete_knowledge_document",
		flags: [workspaceFlag, sourceFlag, documentFlag],
	},
	{
		path: "knowledge search",
		summary: "Search a source's READY documents; the best chunks with their score",
		tool: "search_knowledge",
		flags: [
			workspaceFlag,
			sourceFlag,
			flag("query", "string", "What to look for, in natural language", { placeholder: "TEXT", required: true }),
			flag("top-k", "integer", "How many chunks", { key: "topK", default: "5" }),
			flag("min-score", "number", "Leave out chunks scoring below this (0 to 1)"),
		],
		table: { list: "results", columns: ["score", "documentId", "filename", "text"], empty: "Nothing found." },
	},
];
