import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILTIN_DIMENSIONS, embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { IndexBuilderPool } from "../../server/knowledge/index/index-builder-pool";
import { invertLexicon, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { buffersOf } from "../../server/knowledge/index/thread-transfer";
import { BACKGROUND_NICENESS } from "../../server/shared/background-priority";
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

	it("run at background priority, so the API's thread gets the cores first while they build", async () => {
		const pool = new IndexBuilderPool("postgres://unused");
		try {
			// Linux keeps a niceness per thread: field 19 of /proc/<pid>/task/<tid>/stat.
			const niceness = () =>
				new Map(
					readdirSync(`/proc/${process.pid}/task`).map((tid) => {
						const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
						return [Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])] as const;
					}),
				);
			const before = niceness();
			const words = "the keeper of the lighthouse climbs the stairs at dusk to light the lamp".split(" ");
			const texts = Array.from({ length: 4000 }, (_, index) => Array.from({ length: 300 }, (_, word) => words[(index * 7 + word) % words.length]).join(" "));
			const build = pool.run("workspace", { kind: "embed-builtin", texts });
			const seen = new Set<number>();
			let done = false;
			void build.finally(() => {
				done = true;
			});
			while (!done) {
				for (const [tid, nice] of niceness()) if (!before.has(tid) && nice === BACKGROUND_NICENESS) seen.add(tid);
				await new Promise((resolve) => setTimeout(resolve, 5));
			}
			expect((await build).length).toBe(texts.length * BUILTIN_DIMENSIONS);
			expect(seen.size).toBeGreaterThan(0);
			// The process itself (its main thread, the API's event loop) keeps its priority.
			expect(niceness().get(process.pid)).toBe(before.get(process.pid));
		} finally {
			await pool.close();
		}
	});
});
