import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { GraphViews } from "../../server/knowledge/index/graph-views";
import { closeColumnRuns, columnScanScratch, nextColumnRuns, openColumnRuns, scanColumnRuns } from "../../server/knowledge/index/vector-columns";
import { type VectorSegment, writeMeta } from "../../server/knowledge/index/vector-index-files";
import { generatedWords, seededRandom, zipfRanks } from "../helpers/zipf-text";

const DIMENSIONS = 512;

/**
 * The int8 column runs a generation's sparse queries are scanned over (vector-columns.ts): built
 * from its float32 segments fold after fold, merged so they stay few, and scanned to the same
 * nearest keys as an exact float32 scan.
 */
describe("int8 column runs of a vector index", () => {
	let directory: string;
	const segments: VectorSegment[] = [];
	const vectors: Float32Array[] = [];
	let texts: string[] = [];

	beforeAll(async () => {
		directory = await mkdtemp(join(tmpdir(), "vector-columns-test-"));
		const random = seededRandom(20_261_127);
		const words = generatedWords(20_000);
		const rank = zipfRanks(words.length);
		texts = Array.from({ length: 6_000 }, () => Array.from({ length: 60 + Math.floor(random() * 60) }, () => words[rank(random)]).join(" "));
	});

	afterAll(async () => {
		await rm(directory, { recursive: true, force: true });
	});

	/** A fold adding `count` keys: their float32 segment written, then the next runs. */
	const fold = (generation: number, base: VectorSegment[], count: number) => {
		const from = vectors.length;
		const rows = new Float32Array(count * DIMENSIONS);
		for (let index = 0; index < count; index++) {
			const vector = embedBuiltin(texts[from + index]);
			vectors.push(vector);
			rows.set(vector, index * DIMENSIONS);
		}
		const segment = { file: `${generation}-test.f32`, from, to: from + count };
		writeFileSync(join(directory, segment.file), new Uint8Array(rows.buffer));
		segments.push(segment);
		return nextColumnRuns(directory, `${generation}-test`, segments, DIMENSIONS, base, segment);
	};

	const exactNearest = (query: Float32Array, dead: Uint8Array, limit: number) =>
		vectors
			.map((vector, key) => ({ key, similarity: vector.reduce((sum, value, dimension) => sum + value * query[dimension], 0) }))
			.filter((hit) => !dead[hit.key])
			.sort((a, b) => b.similarity - a.similarity)
			.slice(0, limit);

	it("stay few and contiguous as folds add keys, and every key is in exactly one run", () => {
		let runs: VectorSegment[] = [];
		const sizes = [1_000, 200, 200, 300, 200, 200, 1_500, 100, 100, 100, 400, 200];
		for (const [generation, count] of sizes.entries()) {
			runs = fold(generation + 1, runs, count);
			expect(runs[0].from).toBe(0);
			expect(runs[runs.length - 1].to).toBe(vectors.length);
			for (let index = 1; index < runs.length; index++) expect(runs[index].from).toBe(runs[index - 1].to);
			// Sizes fall from the oldest run to the newest (merged while the newest is no larger): few runs.
			for (let index = 1; index < runs.length; index++) expect(runs[index].to - runs[index].from).toBeLessThan(runs[index - 1].to - runs[index - 1].from);
		}
		expect(vectors.length).toBe(4_500);
		expect(runs.length).toBeLessThanOrEqual(5);
		expect(runs.length).toBeGreaterThan(1);

		// Scanned: the same nearest keys as the exact float32 scan, dead keys never returned.
		const opened = openColumnRuns(directory, runs, DIMENSIONS);
		const dead = new Uint8Array(vectors.length);
		for (let key = 0; key < vectors.length; key += 7) dead[key] = 1;
		const scratch = columnScanScratch();
		for (const text of [texts[10].split(" ").slice(3, 6).join(" "), texts[4_000].split(" ").slice(0, 2).join(" "), "archive lantern harbour"]) {
			const query = embedBuiltin(text);
			const used = [...query.keys()].filter((dimension) => query[dimension] !== 0);
			const { keys, scores, error } = scanColumnRuns(opened, DIMENSIONS, query, used, dead, 64, scratch);
			expect(keys.every((key) => !dead[key])).toBe(true);
			const truth = exactNearest(query, dead, 10);
			// The exact ten are among the int8 scan's 64 best (what search rescores exactly).
			for (const hit of truth) expect(keys).toContain(hit.key);
			// Every int8 score is within the scan's error of the exact similarity (search stops rescoring on it), and the error is small beside the similarities.
			const exact = (key: number) => vectors[key].reduce((sum, value, dimension) => sum + value * query[dimension], 0);
			keys.forEach((key, index) => expect(Math.abs(exact(key) - scores[index])).toBeLessThanOrEqual(error));
			expect(error).toBeLessThan(truth[0].similarity / 10);
		}
		closeColumnRuns(opened);
	});

	it("keep the blocks a scan read resident for the next (the least recently used leaving first past the budget), and scan exactly as reading every block, whatever the budget", () => {
		// Runs of several blocks (65,536 rows each, the last one partial), over 64 dimensions of random sparse vectors.
		const dimensions = 64;
		const random = seededRandom(7);
		const keys = 140_000;
		const rows = new Float32Array(keys * dimensions);
		for (let key = 0; key < keys; key++) for (let taken = 0; taken < 6; taken++) rows[key * dimensions + Math.floor(random() * dimensions)] = random() * 2 - 1;
		const pagesDirectory = join(directory, "pages");
		rmSync(pagesDirectory, { recursive: true, force: true });
		mkdirSync(pagesDirectory);
		const parts: VectorSegment[] = [
			{ file: "1-pages.f32", from: 0, to: 100_000 },
			{ file: "2-pages.f32", from: 100_000, to: keys },
		];
		for (const part of parts) writeFileSync(join(pagesDirectory, part.file), new Uint8Array(rows.buffer, part.from * dimensions * 4, (part.to - part.from) * dimensions * 4));
		const runs = nextColumnRuns(pagesDirectory, "2-pages", parts, dimensions, nextColumnRuns(pagesDirectory, "1-pages", parts.slice(0, 1), dimensions, [], parts[0]), parts[1]);
		expect(runs.map((run) => [run.from, run.to])).toEqual([
			[0, 100_000],
			[100_000, keys],
		]);
		const opened = () => openColumnRuns(pagesDirectory, runs, dimensions);
		const dead = new Uint8Array(keys);
		for (let key = 3; key < keys; key += 11) dead[key] = 1;
		const queries = Array.from({ length: 24 }, () => {
			const query = new Float32Array(dimensions);
			for (let taken = 0; taken < 8 + Math.floor(random() * 8); taken++) query[Math.floor(random() * dimensions)] = random();
			return query;
		});
		const usedOf = (query: Float32Array) => [...query.keys()].filter((dimension) => query[dimension] !== 0);
		const reference = openColumnRuns(pagesDirectory, runs, dimensions);
		const streaming = columnScanScratch();
		expect(streaming.pages.count).toBe(0);
		const expected = queries.map((query) => scanColumnRuns(reference, dimensions, query, usedOf(query), dead, 50, streaming));
		const blocksOf = (query: Float32Array) => usedOf(query).length * 3;
		const allBlocks = queries.reduce((sum, query) => sum + blocksOf(query), 0);
		expect(streaming.pages.statistics).toEqual({ resident: 0, read: allBlocks });

		// Room for every block (64 columns x 3 blocks). A scan takes at most 16 fresh pages (their first write is a page
		// fault), so they fill over a few passes; then a whole pass reads nothing from the files.
		const roomy = columnScanScratch(256 * 65_536);
		const generation = opened();
		// A block gets a page the second time it is read.
		expect(scanColumnRuns(generation, dimensions, queries[0], usedOf(queries[0]), dead, 50, roomy)).toEqual(expected[0]);
		expect(roomy.pages.residentBytes).toBe(0);
		expect(scanColumnRuns(generation, dimensions, queries[0], usedOf(queries[0]), dead, 50, roomy)).toEqual(expected[0]);
		expect(roomy.pages.residentBytes).toBe(Math.min(16, blocksOf(queries[0])) * 65_536);
		let passes = 0;
		let readBefore: number;
		do {
			readBefore = roomy.pages.statistics.read;
			queries.forEach((query, index) => expect(scanColumnRuns(generation, dimensions, query, usedOf(query), dead, 50, roomy)).toEqual(expected[index]));
			passes++;
		} while (roomy.pages.statistics.read > readBefore && passes < 20);
		expect(passes).toBeGreaterThan(1);
		const distinctBlocks = new Set(queries.flatMap(usedOf)).size * 3;
		expect(roomy.pages.residentBytes).toBe(distinctBlocks * 65_536);
		const readOnce = roomy.pages.statistics.read;
		// A second generation shares the pages; letting the first go frees its pages for it, and its table forgets them.
		const other = opened();
		roomy.pages.release(generation.pageOf);
		expect(generation.pageOf.every((page) => page === -1)).toBe(true);
		const scanFirstFour = () => queries.slice(0, 4).forEach((query, index) => expect(scanColumnRuns(other, dimensions, query, usedOf(query), dead, 50, roomy)).toEqual(expected[index]));
		scanFirstFour();
		scanFirstFour();
		const readByOther = roomy.pages.statistics.read;
		expect(readByOther).toBeGreaterThan(readOnce);
		scanFirstFour();
		expect(roomy.pages.statistics.read).toBe(readByOther);
		// The pages it took were the first's, freed: none more was written.
		expect(roomy.pages.residentBytes).toBe(distinctBlocks * 65_536);

		// Sixteen pages, fewer than one query's blocks: pages are taken from the least recently used block, and every scan stays exact.
		const tight = columnScanScratch(16 * 65_536);
		expect(tight.pages.count).toBe(16);
		const squeezed = opened();
		for (let pass = 0; pass < 2; pass++) queries.forEach((query, index) => expect(scanColumnRuns(squeezed, dimensions, query, usedOf(query), dead, 50, tight)).toEqual(expected[index]));
		expect(tight.pages.residentBytes).toBe(16 * 65_536);
		expect(squeezed.pageOf.filter((page) => page >= 0).length).toBe(16);
		expect(tight.pages.statistics.read).toBeGreaterThan(allBlocks);
		for (const generationRuns of [reference, generation, other, squeezed]) closeColumnRuns(generationRuns);
	});

	it("a generation written before column runs gets one run over all its keys at its next fold", () => {
		const before = vectors.length;
		const runs = fold(99, [], 50);
		expect(runs).toEqual([{ file: `99-test.0-${before + 50}.i8`, from: 0, to: before + 50 }]);
	});

	it("a fold that only removes keys keeps the runs as they are", async () => {
		const runs = fold(100, [], 10);
		const files = await readdir(directory);
		expect(nextColumnRuns(directory, "101-test", segments, DIMENSIONS, runs, { from: vectors.length, to: vectors.length })).toEqual(runs);
		expect(await readdir(directory)).toEqual(files);
	});

	it("a viewed generation keeps reading its runs and chunk ids after a later one merged them and their files were removed, and lets the files go when closed", () => {
		const runs = nextColumnRuns(directory, "200-test", segments, DIMENSIONS, [], { from: vectors.length, to: vectors.length });
		const chunkIds = vectors.map((_, key) => `chk_${key}`);
		writeMeta(directory, { name: "200-test", dimensions: DIMENSIONS, count: vectors.length, segments, columns: runs, graph: false, chunkIds, documentOfKey: new Int32Array(vectors.length), documentIds: ["doc"], versions: ["1"] });
		const openDescriptors = () => readdirSync("/proc/self/fd").length;
		const before = openDescriptors();
		const views = new GraphViews();
		const description = { directory, name: "200-test", dimensions: DIMENSIONS, count: vectors.length, segments, columns: runs, graph: false, dead: new SharedArrayBuffer(vectors.length) };
		expect(views.handle({ graph: 1, op: "view", request: 1, description })?.reply).toEqual({ request: 1, viewed: true });
		// The runs and the .meta, whose chunk ids are read for each search's hits.
		expect(openDescriptors()).toBe(before + runs.length + 1);
		// As removeOldGenerations does ten minutes after a fold merged them into a new run.
		for (const run of runs) rmSync(join(directory, run.file));
		rmSync(join(directory, "200-test.meta"));
		const query = embedBuiltin("archive lantern harbour");
		const answer = views.handle({ graph: 1, op: "search", request: 2, query, candidates: 2_048, rescored: 256, limit: 10 })?.reply;
		const nearest = exactNearest(query, new Uint8Array(vectors.length), 10).map((hit) => hit.key);
		expect(answer && "keys" in answer && Array.from(answer.keys)).toEqual(nearest);
		expect(answer && "chunkIds" in answer && answer.chunkIds).toEqual(nearest.map((key) => chunkIds[key]));
		views.handle({ graph: 1, op: "close" });
		expect(openDescriptors()).toBe(before);
	});
});
