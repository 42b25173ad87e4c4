import { describe, expect, it } from "vitest";
import { BUILTIN_DIMENSIONS, embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { IndexBuilderPool } from "../../server/knowledge/index/index-builder-pool";
import { invertLexicon, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { buffersOf } from "../../server/knowledge/index/thread-transfer";
import { zipfCorpus } from "./zipf-lexicon-corpus";

/**
 * A whole source's build leaves its thread's heap full of garbage (a lexicon, a matrix or a graph:
 * gigabytes at a million chunks) that an idle thread would keep; small tasks (a document's
 * embedding batches) keep reusing one thread.
 */
describe("index-builder threads", () => {
	it("are kept for the next small task, and exit after a whole-source task instead of idling with its garbage", async () => {
		// These tasks read no database.
		const pool = new IndexBuilderPool("postgres://unused");
		try {
			const first = await pool.run("workspace", { kind: "embed-builtin", texts: ["a lighthouse keeper"] });
			expect(Array.from(first)).toEqual(Array.from(embedBuiltin("a lighthouse keeper")));
			expect((await pool.run("workspace", { kind: "embed-builtin", texts: ["two", "texts"] })).length).toBe(2 * BUILTIN_DIMENSIONS);
			expect(pool.threadsStarted).toBe(1);

			const corpus = zipfCorpus(3, 500);
			const lexicon = new SourceLexicon();
			lexicon.addRows(Array.from({ length: 50 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat());
			const pairs = structuredClone(lexicon.pairs());
			const expected = invertLexicon(structuredClone(pairs));
			const inverted = await pool.run("workspace", { kind: "invert-lexicon", pairs }, buffersOf(pairs.live, pairs.lengths, pairs.pairStarts, pairs.pairTerms, pairs.pairFrequencies));
			expect(Array.from(inverted.postings)).toEqual(Array.from(expected.postings));
			expect(pool.threadsStarted).toBe(1);

			await pool.run("workspace", { kind: "embed-builtin", texts: ["three"] });
			expect(pool.threadsStarted).toBe(2);
		} finally {
			await pool.close();
		}
	});
});
