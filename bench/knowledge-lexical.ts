/**
 * npm run bench:knowledge-lexical — the in-memory BM25 lexicon alone, at 100,000 and 1,000,000
 * chunks: build time, memory, and ranking latency, exhaustive (every posting of every query term
 * scored) against pruned (as search ranks: frequent words' columns where the lexicon picks them,
 * impact-top-k.ts; and with lists only, MaxScore, pruned-top-k.ts), with and without RM3 expansion.
 *
 * No database and no API: rows as PostgreSQL would give them (tsvector text) are generated here,
 * seeded, and added page by page as the index-builder thread does. Chunks of ~120 words (60-180)
 * drawn from a Zipf law (rank r with probability ~ 1/r) over a 50,000-word vocabulary, one in ten
 * with a heading; 200 seeded queries of 2-4 words, common and rare mixed (rank = 50,000 x u^3),
 * and 200 of frequent words as bench:knowledge-scale draws them (rank = 20 + 3 x a Zipf rank: words
 * each in up to two thirds of the chunks, the class that sets search's p99 at a million chunks);
 * top 50 (what search asks of the lexical half for topK up to 12). Every pruned ranking is checked
 * against the exhaustive one (mismatches are counted and must be 0).
 *
 * Memory is the process's heap plus array buffers grown by the build (after a GC, the generated
 * rows gone). Then the lexicon file (lexicon-files.ts): the time to write it, and to open it as a
 * restarted server does (in pieces: everything but the postings and pairs read on an
 * index-builder thread, transferred, adopted on this thread), with the longest event-loop delay
 * meanwhile, the memory the opened lexicon holds, and its ranking latency (BM25 + RM3, pruned)
 * against the in-memory lexicon's, query by query; the file is read from the page cache (just
 * written), not from a cold disk. The opened lexicon must rank every query as the built one. Sizes: LEXICAL_BENCH_SIZES (comma-separated, default 100000,1000000).
 * Results: bench/results/knowledge-lexical.json.
 */
import { statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { IndexBuilderPool } from "../server/knowledge/index/index-builder-pool";
import { currentGeneration, sourceLexiconDirectory } from "../server/knowledge/index/index-generations";
import { type LexicalChunkRow, SourceLexicon } from "../server/knowledge/index/lexical-index";
import { writeLexiconFile } from "../server/knowledge/index/lexicon-files";
import { rankLexically } from "../server/knowledge/search/rank-lexically";
import { processMemoryMiB, restartPeakWindow } from "./process-memory";
import { describeRun } from "./run-record";
import { seededRandom, zipfRanks } from "../test/helpers/zipf-text";

const SIZES = (process.env.LEXICAL_BENCH_SIZES ?? "100000,1000000").split(",").map(Number);
const VOCABULARY = 50_000;
const QUERIES = 200;
const TOP = 50;
const PAGE = 10_000;

const log = (message: string) => process.stdout.write(`${message}\n`);
const percentile = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value: number) => Number(value.toFixed(3));
const memoryMiB = () => {
	global.gc?.();
	global.gc?.();
	const usage = process.memoryUsage();
	return (usage.heapUsed + usage.arrayBuffers) / 2 ** 20;
};

/** Writes the lexicon's file, opens it as a restarted server does, and checks the opened one ranks alike. */
async function measureLexiconFile(lexicon: SourceLexicon, queries: Map<string, number>[], frequentQueries: Map<string, number>[]) {
	const root = await mkdtemp(join(tmpdir(), "bench-lexicon-file-"));
	// Open-lexicon reads no database: the pool's URL is never used.
	const builders = new IndexBuilderPool("postgres://unused");
	try {
		const writeStarted = performance.now();
		writeLexiconFile(root, "bench", lexicon.toTransfer().transfer);
		const writeMs = performance.now() - writeStarted;
		const directory = sourceLexiconDirectory(root, "bench");
		const fileMiB = statSync(join(directory, `${currentGeneration(directory)}.lexicon`)).size / 2 ** 20;
		// A thread started and warmed first, as a running server's pool has (its start is not the file's cost).
		await builders.run("bench", { kind: "open-lexicon", sourceId: "none", directory: root });
		const delay = monitorEventLoopDelay({ resolution: 1 });
		delay.enable();
		const openStarted = performance.now();
		const transfer = await builders.run("bench", { kind: "open-lexicon", sourceId: "bench", directory: root });
		if (!transfer) throw new Error("the lexicon file was not found");
		const opened = await SourceLexicon.fromTransfer(transfer);
		const openMs = performance.now() - openStarted;
		delay.disable();
		let rankingMismatches = 0;
		const taken = { inMemory: [] as number[], inPieces: [] as number[], frequentInMemory: [] as number[], frequentInPieces: [] as number[] };
		const timed = (lexiconRanked: SourceLexicon, into: number[], query: Map<string, number>) => {
			const started = performance.now();
			const hits = rankLexically(lexiconRanked, query, TOP);
			into.push(performance.now() - started);
			return JSON.stringify(hits.map((hit) => [hit.chunkId, hit.score]));
		};
		for (const query of queries.slice(0, 20)) timed(opened, [], query);
		for (const query of queries) if (timed(opened, taken.inPieces, query) !== timed(lexicon, taken.inMemory, query)) rankingMismatches++;
		for (const query of frequentQueries) if (timed(opened, taken.frequentInPieces, query) !== timed(lexicon, taken.frequentInMemory, query)) rankingMismatches++;
		const ranking = Object.fromEntries(Object.entries(taken).map(([name, values]) => [name, { p50Ms: ms(percentile(values, 50)), p99Ms: ms(percentile(values, 99)) }]));
		return {
			fileMiB: Math.round(fileMiB),
			writeMs: Math.round(writeMs),
			openMs: Math.round(openMs),
			longestLoopDelayMs: ms(delay.max / 1e6),
			openedMemoryMiB: Math.round(opened.memoryBytes() / 2 ** 20),
			inMemoryMemoryMiB: Math.round(lexicon.memoryBytes() / 2 ** 20),
			rankingWithExpansion: ranking as Record<"inMemory" | "inPieces" | "frequentInMemory" | "frequentInPieces", Measured>,
			rankingMismatches,
		};
	} finally {
		await builders.close();
		await rm(root, { recursive: true, force: true });
	}
}

const zipfRank = zipfRanks(VOCABULARY);
const word = (rank: number) => `w${rank.toString(36)}`;

/** A page of chunk rows in tsvector output form (positions 1..n: only their number matters to BM25). */
function rowsPage(random: () => number, first: number, count: number): LexicalChunkRow[] {
	const rows: LexicalChunkRow[] = [];
	const tsvector = (ranks: number[]) => {
		const counts = new Map<number, number>();
		for (const rank of ranks) counts.set(rank, (counts.get(rank) ?? 0) + 1);
		let text = "";
		for (const [rank, frequency] of counts) {
			text += `${text ? " " : ""}'${word(rank)}':1`;
			for (let position = 2; position <= frequency; position++) text += `,${position}`;
		}
		return text;
	};
	for (let index = first; index < first + count; index++) {
		const ranks = Array.from({ length: 60 + Math.floor(random() * 121) }, () => zipfRank(random));
		rows.push({
			id: `chk_${index.toString(36).padStart(8, "0")}`,
			document_id: `doc_${Math.floor(index / 20).toString(36)}`,
			version: "1:t",
			lexemes: tsvector(ranks),
			heading_lexemes: index % 10 === 0 ? tsvector([zipfRank(random), zipfRank(random)]) : null,
		});
	}
	return rows;
}

interface Measured {
	p50Ms: number;
	p99Ms: number;
	/** The same queries again (a frequent word's columns held). */
	again?: { p50Ms: number; p99Ms: number };
}

const run = describeRun({ sizes: SIZES, vocabulary: VOCABULARY, wordsPerChunk: "60-180", queries: QUERIES, top: TOP });
const results: Record<string, unknown> = { ...run, sizes: {} as Record<string, unknown> };
const table: string[] = [];

for (const size of SIZES) {
	const before = memoryMiB();
	const random = seededRandom(size);
	const lexicon = new SourceLexicon();
	let buildMs = 0;
	// The build's peak resident memory, as a builder thread's (Linux: "5" to clear_refs starts a new window of VmHWM).
	await restartPeakWindow("self");
	for (let first = 0; first < size; first += PAGE) {
		const page = rowsPage(random, first, Math.min(PAGE, size - first));
		const started = performance.now();
		lexicon.addRows(page);
		// As the builder thread does: sized from the first page.
		if (first === 0) lexicon.reserveFor(size);
		buildMs += performance.now() - started;
	}
	const settleStarted = performance.now();
	lexicon.settle();
	buildMs += performance.now() - settleStarted;
	const buildPeakRssMiB = (await processMemoryMiB("self")).peakMiB;
	const lexiconMiB = memoryMiB() - before;
	log(
		`${size} chunks: built in ${(buildMs / 1000).toFixed(1)} s, ${lexicon.pairCount} (chunk, term) pairs, ${lexiconMiB.toFixed(0)} MiB (memoryBytes ${(lexicon.memoryBytes() / 2 ** 20).toFixed(0)} MiB), process peak RSS during the build ${buildPeakRssMiB.toFixed(0)} MiB`,
	);

	const queryRandom = seededRandom(7);
	const queries = Array.from({ length: QUERIES }, () => new Map(Array.from({ length: 2 + Math.floor(queryRandom() * 3) }, () => [word(Math.floor(VOCABULARY * queryRandom() ** 3)), 1] as [string, number])));
	// The hard class: bench:knowledge-scale's draw (ranks 20 + 3 x a Zipf rank), words each in up to two thirds of the chunks.
	const frequentRandom = seededRandom(11);
	const frequentQueries = Array.from({ length: QUERIES }, () => new Map(Array.from({ length: 2 + Math.floor(frequentRandom() * 3) }, () => [word(Math.min(VOCABULARY - 1, 20 + 3 * zipfRank(frequentRandom))), 1] as [string, number])));
	// Pruned: as search ranks (frequent words' columns where the lexicon picks them, impact-top-k.ts), and with lists only (MaxScore).
	const withColumns = <T>(mode: "auto" | "never", rank: () => T) => {
		lexicon.columnRanking.mode = mode;
		try {
			return rank();
		} finally {
			lexicon.columnRanking.mode = "auto";
		}
	};
	const modes = {
		exhaustive: (query: Map<string, number>) => rankLexically(lexicon, query, TOP, false, "exhaustive"),
		pruned: (query: Map<string, number>) => withColumns("auto", () => rankLexically(lexicon, query, TOP, false, "pruned")),
		prunedListsOnly: (query: Map<string, number>) => withColumns("never", () => rankLexically(lexicon, query, TOP, false, "pruned")),
		exhaustiveWithExpansion: (query: Map<string, number>) => rankLexically(lexicon, query, TOP, undefined, "exhaustive"),
		prunedWithExpansion: (query: Map<string, number>) => withColumns("auto", () => rankLexically(lexicon, query, TOP, undefined, "pruned")),
		prunedListsOnlyWithExpansion: (query: Map<string, number>) => withColumns("never", () => rankLexically(lexicon, query, TOP, undefined, "pruned")),
	};
	// One warm-up pass (JIT), then two measured ones: the first as queries come (a frequent word's columns are made
	// at its first ranking, so in this pass), the second the same queries again (columns held); modes interleaved
	// query by query so machine noise hits each alike.
	const timeModes = (measured: Map<string, number>[]) => {
		const rounds = [0, 1].map((): Record<keyof typeof modes, number[]> => ({ exhaustive: [], pruned: [], prunedListsOnly: [], exhaustiveWithExpansion: [], prunedWithExpansion: [], prunedListsOnlyWithExpansion: [] }));
		let mismatched = 0;
		for (const query of measured.slice(0, 20)) for (const rank of Object.values(modes)) rank(query);
		for (const taken of rounds) {
			for (const query of measured) {
				const outputs: Record<string, string> = {};
				for (const [name, rank] of Object.entries(modes) as [keyof typeof modes, (query: Map<string, number>) => unknown][]) {
					const started = performance.now();
					const hits = rank(query);
					taken[name].push(performance.now() - started);
					outputs[name] = JSON.stringify(hits);
				}
				if (outputs.exhaustive !== outputs.pruned || outputs.exhaustive !== outputs.prunedListsOnly) mismatched++;
				if (outputs.exhaustiveWithExpansion !== outputs.prunedWithExpansion || outputs.exhaustiveWithExpansion !== outputs.prunedListsOnlyWithExpansion) mismatched++;
			}
		}
		return { rounds, mismatched };
	};
	const uniform = timeModes(queries);
	const frequent = timeModes(frequentQueries);
	const mismatches = uniform.mismatched + frequent.mismatched;
	const summarize = ([first, again]: Record<string, number[]>[]) =>
		Object.fromEntries(
			Object.keys(first).map((name) => [name, { p50Ms: ms(percentile(first[name], 50)), p99Ms: ms(percentile(first[name], 99)), again: { p50Ms: ms(percentile(again[name], 50)), p99Ms: ms(percentile(again[name], 99)) } }]),
		) as Record<keyof typeof modes, Measured>;
	const measured = summarize(uniform.rounds);
	const measuredFrequent = summarize(frequent.rounds);
	const file = await measureLexiconFile(lexicon, queries, frequentQueries);
	(results.sizes as Record<string, unknown>)[size] = { buildSeconds: Number((buildMs / 1000).toFixed(1)), pairs: lexicon.pairCount, memoryMiB: Math.round(lexiconMiB), buildPeakRssMiB: Math.round(buildPeakRssMiB), mismatches, ranking: measured, rankingFrequentWords: measuredFrequent, file };
	log(`${size} chunks: lexicon file ${JSON.stringify(file)}`);
	log(`${size} chunks: ${JSON.stringify(measured)}; frequent words: ${JSON.stringify(measuredFrequent)}; pruned/exhaustive mismatches: ${mismatches}`);
	const row = (name: string, mode: Measured) => `| ${size.toLocaleString("en")} | ${name} | ${mode.p50Ms} | ${mode.p99Ms} | ${mode.again?.p50Ms ?? ""} | ${mode.again?.p99Ms ?? ""} |`;
	table.push(
		row("BM25, exhaustive", measured.exhaustive),
		row("BM25, pruned", measured.pruned),
		row("BM25, pruned, lists only (MaxScore)", measured.prunedListsOnly),
		row("BM25 + RM3, exhaustive", measured.exhaustiveWithExpansion),
		row("BM25 + RM3, pruned", measured.prunedWithExpansion),
		row("BM25 + RM3, pruned, lists only (MaxScore)", measured.prunedListsOnlyWithExpansion),
		row("frequent words (the scale bench's draw): BM25, exhaustive", measuredFrequent.exhaustive),
		row("frequent words: BM25, pruned", measuredFrequent.pruned),
		row("frequent words: BM25, pruned, lists only (MaxScore)", measuredFrequent.prunedListsOnly),
		row("frequent words: BM25 + RM3, exhaustive", measuredFrequent.exhaustiveWithExpansion),
		row("frequent words: BM25 + RM3, pruned", measuredFrequent.prunedWithExpansion),
		row("frequent words: BM25 + RM3, pruned, lists only (MaxScore)", measuredFrequent.prunedListsOnlyWithExpansion),
		`| ${size.toLocaleString("en")} | build ${(buildMs / 1000).toFixed(1)} s, ${Math.round(lexiconMiB)} MiB (process peak during it ${Math.round(buildPeakRssMiB)} MiB), mismatches ${mismatches} | | | | |`,
		`| ${size.toLocaleString("en")} | lexicon file ${file.fileMiB} MiB: written in ${file.writeMs} ms, opened in pieces in ${file.openMs} ms (longest event-loop delay ${file.longestLoopDelayMs} ms), holding ${file.openedMemoryMiB} MiB (in memory: ${file.inMemoryMemoryMiB} MiB), ${file.rankingMismatches} ranking mismatches | | | | |`,
		row("BM25 + RM3, pruned, lexicon in memory (same queries, interleaved)", file.rankingWithExpansion.inMemory),
		row("BM25 + RM3, pruned, lexicon opened in pieces", file.rankingWithExpansion.inPieces),
		row("frequent words: BM25 + RM3, pruned, lexicon in memory (interleaved)", file.rankingWithExpansion.frequentInMemory),
		row("frequent words: BM25 + RM3, pruned, lexicon opened in pieces", file.rankingWithExpansion.frequentInPieces),
	);
}

log(`\n| chunks | ranking (top ${TOP}, ${QUERIES} queries) | p50 ms | p99 ms | again: p50 ms | p99 ms |\n|---|---|---|---|---|---|`);
for (const line of table) log(line);
await writeFile(new URL("./results/knowledge-lexical.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
log("wrote bench/results/knowledge-lexical.json");
