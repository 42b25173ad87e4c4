/**
 * A parser process (server/knowledge/parse/parser-pool.ts): parses and chunks one document at a
 * time for the process that forked it, under the heap limit it was started with. Built as its own
 * entry point (scripts/build.ts: dist/parser.js); run from source under tsx in tests.
 */
import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import { parseAndChunk } from "./parse-and-chunk";
import { preparePdfReader } from "./parse-pdf";
import { IngestionError, type ParseLimits } from "./parsed-document";
import type { ParseReply } from "./parser-pool";

interface ParseRequest {
	id: number;
	bytes: Uint8Array;
	extension: DocumentExtension;
	limits: ParseLimits;
}

async function handle(request: ParseRequest): Promise<ParseReply> {
	try {
		return { id: request.id, chunks: await parseAndChunk(request.bytes, request.extension, request.limits) };
	} catch (error) {
		if (error instanceof IngestionError) return { id: request.id, failure: error.message };
		return { id: request.id, failure: `The .${request.extension} file could not be parsed`, unexpected: String((error as Error)?.stack ?? error) };
	}
}

process.on("message", (request: ParseRequest) => {
	void handle(request).then((reply) => process.send?.(reply));
});
// The parent went away (or closed the pool): nothing is left to parse for.
process.on("disconnect", () => process.exit(0));
// Modules loaded: from now on a document's wall-clock budget measures the document alone.
void preparePdfReader().then(() => process.send?.({ ready: true }));
