import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import { type Chunk, chunkDocument } from "../chunk/chunk-document";
import { parseDocument } from "./parse-document";
import { IngestionError, type ParseLimits, formatCount } from "./parsed-document";

/** Parse then chunk, within the document's budgets: what a parser process does for each document. */
export async function parseAndChunk(bytes: Uint8Array, extension: DocumentExtension, limits: ParseLimits): Promise<Chunk[]> {
	const parsed = await parseDocument(bytes, extension, limits);
	let count = 0;
	const chunks = chunkDocument(parsed, undefined, () => {
		count += 1;
		if (count > limits.maxChunks) throw new IngestionError(`The document yields more than ${formatCount(limits.maxChunks)} chunks`);
	});
	if (chunks.length === 0) throw new IngestionError("No text could be extracted from the document");
	return chunks;
}
