/**
 * npm run bench:knowledge-vectors — the vector half of knowledge search on one synthetic source:
 * the exact sparse-aware scan (SourceMatrix, a small source's), the int8 column runs a large
 * source's sparse queries scan (vector-columns.ts), and usearch HNSW indexes.
 *
 * Chunks: seeded text of ~120 Zipf-ranked words (50,000-word vocabulary), embedded in process
 * with the builtin embedder (512 dimensions); queries: 200 seeded 2-4-word texts, same law.
 * For each HNSW configuration (quantization, M = connectivity, expansion_add): the build (one
 * `add` of every vector, usearch's own threads), the saved file's size, the time to open it
 * memory-mapped (`view`) and read into memory (`load`); then for each ef (expansion_search):
 * search p50/p99 and recall@50 against the exact scan. The search asks HNSW for max(ef, 50)
 * candidates and rescores them exactly from the float32 vectors (so a quantized index ranks by
 * exact similarity); the timing includes the rescoring.
 *
 * The column scan reads its runs from files as search does (page cache), as one run and as the
 * runs a source folded 2,000 chunks at a time would have; its best 256 are rescored exactly.
 *
 * `--chunks N` (default 100000), `--configs i8-16-128,f32-16-128` to pick configurations (`none`: no graph), `--efs 64,128`
 * the expansion_search values, `--rescore 0,256`
 * how many of the graph's best candidates are rescored (0: all; each a row).
 * Results: bench/results/knowledge-vectors.json (`--out name.json` for another file).
 */
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Index, type MetricKind, type ScalarKind } from "usearch";
import { embedBuiltin } from "../server/knowledge/embed/builtin-embedder";
import { SourceMatrix, type VectorChunkRow } from "../server/knowledge/index/vector-cache";
import { closeColumnRuns, columnScanScratch, nextColumnRuns, openColumnRuns, scanColumnRuns } from "../server/knowledge/index/vector-columns";
import type { VectorSegment } from "../server/knowledge/index/vector-index-files";
import { encodeVector } from "../server/knowledge/index/vector-encoding";
import { describeRun } from "./run-record";
import { generatedWords, seededRandom, zipfRanks } from "../test/helpers/zipf-text";

const argument = (name: string) => {
	const index = process.argv.indexOf(name);
	return index >= 0 ? process.argv[index + 1] : undefined;
};
const CHUNKS = Number(argument("--chunks") ?? 100_000);
const CONFIGS = (argument("--configs") ?? "i8-16-128,i8-16-64,i8-32-128,f32-16-128").split(",").filter((text) => text !== "none").map((text) => {
	const [quantization, connectivity, expansionAdd] = text.split("-");
	return { quantization: quantization as "i8" | "f32" | "f16", connectivity: Number(connectivity), expansionAdd: Number(expansionAdd) };
});
const EFS = (argument("--efs") ?? "64,128,256,512").split(",").map(Number);
/** Candidates rescored exactly, the graph's best first (0: all of them). */
const RESCORES = (argument("--rescore") ?? "0,256").split(",").map(Number);
const RESULTS = argument("--out") ?? "knowledge-vectors.json";
const QUERIES = 200;
const TOP = 50;
const WORDS_PER_CHUNK = 120;
const VOCABULARY = 50_000;
const DIMENSIONS = 512;
const log = (message: string) => process.stdout.write(`${message}\n`);

const random = seededRandom(20_261_126);
const words = generatedWords(VOCABULARY);
const zipfRank = zipfRanks(VOCABULARY);
const zipfWord = () => words[zipfRank(random)];
const percentile = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value: number) => Number(value.toFixed(3));
const timed = <T>(work: () => T): [T, number] => {
	const started = performance.now();
	const result = work();
	return [result, performance.now() - started];
};

const run = describeRun({ chunks: CHUNKS, queries: QUERIES, top: TOP, configs: CONFIGS, efs: EFS, rescores: RESCORES });
const directory = await mkdtemp(join(tmpdir(), "bench-knowledge-vectors-"));
interface Row {
	design: string;
	buildSeconds: number | null;
	fileMiB: number | null;
	viewMs: number | null;
	loadMs: number | null;
	ef: number | null;
	p50Ms: number;
	p99Ms: number;
	recallAt50: number;
}
const rows: Row[] = [];
const record = (row: Row) => {
	rows.push(row);
	log(
		`| ${row.design} | ${row.buildSeconds ?? "–"} | ${row.fileMiB ?? "–"} | ${row.viewMs ?? "–"} | ${row.loadMs ?? "–"} | ${row.ef ?? "–"} | ${row.p50Ms} | ${row.p99Ms} | ${row.recallAt50} |`,
	);
};

try {
	log(`${CHUNKS} chunks of ~${WORDS_PER_CHUNK} words, builtin vectors (${DIMENSIONS} dims), ${QUERIES} queries, top ${TOP}`);
	const [vectors, embedMs] = timed(() => {
		const all = new Float32Array(CHUNKS * DIMENSIONS);
		for (let chunk = 0; chunk < CHUNKS; chunk++) {
			const text = Array.from({ length: WORDS_PER_CHUNK }, zipfWord).join(" ");
			all.set(embedBuiltin(text), chunk * DIMENSIONS);
		}
		return all;
	});
	log(`embedded in ${(embedMs / 1000).toFixed(1)} s`);
	const queries = Array.from({ length: QUERIES }, () => embedBuiltin(Array.from({ length: 2 + Math.floor(random() * 3) }, zipfWord).join(" ")));

	// The exact scan, built as the builder thread builds it (rows of a page at a time).
	const ids = Array.from({ length: CHUNKS }, (_, index) => `c${String(index).padStart(8, "0")}`);
	const [matrix, matrixMs] = timed(() => {
		const built = new SourceMatrix();
		for (let start = 0; start < CHUNKS; start += 1000) {
			const page: VectorChunkRow[] = [];
			for (let index = start; index < Math.min(CHUNKS, start + 1000); index++) {
				page.push({ id: ids[index], document_id: `d${Math.floor(index / 40)}`, version: "1", embedding: encodeVector(vectors.subarray(index * DIMENSIONS, (index + 1) * DIMENSIONS)) });
			}
			built.apply([], page);
			built.reserve(CHUNKS);
		}
		return built;
	});
	const slotOf = new Map(ids.map((id, index) => [id, index]));
	const exact: number[][] = [];
	const exactTimes: number[] = [];
	for (const query of queries) {
		const [found, taken] = timed(() => matrix.nearest(query, TOP));
		exact.push(found.map((match) => slotOf.get(match.chunkId) ?? -1));
		exactTimes.push(taken);
	}
	log("| design | build s | file MiB | view ms | load ms | ef | p50 ms | p99 ms | recall@50 |");
	log("|---|---|---|---|---|---|---|---|---|");
	record({
		design: `exact scan, sparse-aware (matrix ${(matrix.memoryBytes() / 2 ** 20).toFixed(0)} MiB)`,
		buildSeconds: ms(matrixMs / 1000),
		fileMiB: null,
		viewMs: null,
		loadMs: null,
		ef: null,
		p50Ms: ms(percentile(exactTimes, 50)),
		p99Ms: ms(percentile(exactTimes, 99)),
		recallAt50: 1,
	});

	const keys = new BigUint64Array(CHUNKS);
	for (let index = 0; index < CHUNKS; index++) keys[index] = BigInt(index);
	const rescore = (query: Float32Array, candidates: BigUint64Array): number[] => {
		const used: number[] = [];
		for (let dimension = 0; dimension < DIMENSIONS; dimension++) if (query[dimension] !== 0) used.push(dimension);
		const scored = Array.from(candidates, (key) => {
			const offset = Number(key) * DIMENSIONS;
			let score = 0;
			for (const dimension of used) score += query[dimension] * vectors[offset + dimension];
			return { slot: Number(key), score };
		});
		return scored
			.sort((a, b) => b.score - a.score)
			.slice(0, TOP)
			.map((entry) => entry.slot);
	};

	// The column runs, written from a float32 segment file as a build writes them: one run of every
	// chunk, and the runs of a source folded 2,000 chunks at a time (sizes roughly doubling).
	const segment: VectorSegment = { file: "bench.f32", from: 0, to: CHUNKS };
	await writeFile(join(directory, segment.file), new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
	const folded: VectorSegment[][] = [[]];
	const [, columnsMs] = timed(() => folded.push(nextColumnRuns(directory, "one", [segment], DIMENSIONS, [], segment)));
	let foldedRuns: VectorSegment[] = [];
	for (let from = 0, fold = 0; from < CHUNKS; from += 2_000, fold++) foldedRuns = nextColumnRuns(directory, `fold${fold}`, [segment], DIMENSIONS, foldedRuns, { from, to: Math.min(CHUNKS, from + 2_000) });
	const dead = new Uint8Array(CHUNKS);
	const scratch = columnScanScratch();
	for (const runs of [folded[1], foldedRuns]) {
		const opened = openColumnRuns(directory, runs, DIMENSIONS);
		const runBytes = runs.reduce((sum, run) => sum + (run.to - run.from) * DIMENSIONS, 0);
		const times: number[] = [];
		let recalled = 0;
		queries.forEach((query, position) => {
			const [found, taken] = timed(() => {
				const used: number[] = [];
				for (let dimension = 0; dimension < DIMENSIONS; dimension++) if (query[dimension] !== 0) used.push(dimension);
				const candidates = scanColumnRuns(opened, DIMENSIONS, query, used, dead, 256, scratch).keys;
				return rescore(query, BigUint64Array.from(candidates, (key) => BigInt(key)));
			});
			times.push(taken);
			const truth = new Set(exact[position]);
			recalled += found.filter((slot) => truth.has(slot)).length / Math.max(1, truth.size);
		});
		closeColumnRuns(opened);
		record({
			design: `int8 column scan from files, ${runs.length} run${runs.length === 1 ? "" : "s"}, best 256 rescored`,
			buildSeconds: runs.length === 1 ? ms(columnsMs / 1000) : null,
			fileMiB: Number((runBytes / 2 ** 20).toFixed(1)),
			viewMs: null,
			loadMs: null,
			ef: null,
			p50Ms: ms(percentile(times, 50)),
			p99Ms: ms(percentile(times, 99)),
			recallAt50: Number((recalled / QUERIES).toFixed(3)),
		});
	}

	for (const config of CONFIGS) {
		const name = (rescored: number) => `usearch HNSW ${config.quantization}, M ${config.connectivity}, expansion_add ${config.expansionAdd}, ${rescored ? `best ${rescored}` : "all"} rescored`;
		const create = (ef: number) =>
			new Index({
				dimensions: DIMENSIONS,
				metric: "cos" as MetricKind,
				quantization: config.quantization as ScalarKind,
				connectivity: config.connectivity,
				expansion_add: config.expansionAdd,
				expansion_search: ef,
				multi: false,
			});
		const built = create(64);
		const [, buildMs] = timed(() => built.add(keys, vectors, 2));
		const path = join(directory, `${config.quantization}-${config.connectivity}-${config.expansionAdd}.usearch`);
		built.save(path);
		const fileMiB = Number(((await stat(path)).size / 2 ** 20).toFixed(1));
		const [, viewMs] = timed(() => create(64).view(path));
		const [, loadMs] = timed(() => create(64).load(path));
		for (const ef of EFS) {
			const index = create(ef);
			index.view(path);
			for (const rescored of RESCORES) {
				const times: number[] = [];
				let recalled = 0;
				queries.forEach((query, position) => {
					const [found, taken] = timed(() => {
						const { keys: candidates } = index.search(query, Math.max(ef, TOP), 1);
						return rescore(query, rescored ? candidates.subarray(0, rescored) : candidates);
					});
					times.push(taken);
					const truth = new Set(exact[position]);
					recalled += found.filter((slot) => truth.has(slot)).length / Math.max(1, truth.size);
				});
				record({
					design: name(rescored),
					buildSeconds: ms(buildMs / 1000),
					fileMiB,
					viewMs: ms(viewMs),
					loadMs: ms(loadMs),
					ef,
					p50Ms: ms(percentile(times, 50)),
					p99Ms: ms(percentile(times, 99)),
					recallAt50: Number((recalled / QUERIES).toFixed(3)),
				});
			}
		}
		await rm(path, { force: true });
	}
	await writeFile(new URL(`./results/${RESULTS}`, import.meta.url), `${JSON.stringify({ run, rows }, null, "\t")}\n`);
	log(`results: bench/results/${RESULTS}`);
} finally {
	await rm(directory, { recursive: true, force: true });
}
