import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { Index } from "usearch";
import { readFully, writeAtomically } from "./index-generations";
import { type PackedStrings, packStrings, stringStarts } from "./thread-transfer";

/**
 * usearch's CommonJS build: its ES module finds its native binary from the caller's stack trace,
 * which never ends inside a worker thread started from evaluated code (the builder threads).
 */
const usearch = createRequire(import.meta.url)("usearch") as typeof import("usearch");

/**
 * The on-disk form of a source's approximate vector index (KNOWLEDGE_INDEX_DIR/vectors/<source>/):
 * generations, each named `<number>-<random>` so two processes folding at once never mix files:
 *   <name>.usearch  the HNSW graph with int8-quantized vectors (usearch; opened memory-mapped), for
 *                   sources whose queries are dense (provider embeddings); builtin sources have none;
 *   <name>.meta     which chunk each key is, each chunk's document, each document's version;
 *   <name>.f32      the float32 vectors of the keys this generation added, for exact rescoring
 *                   (key k at (k - from) * dimensions * 4); a later generation reuses earlier files.
 *   <name>.<from>-<to>.i8  the vectors of keys [from, to) again, as int8 columns, for the exact scan
 *                   of sparse queries (vector-columns.ts); runs of earlier generations are reused or merged.
 *   current         the name of the newest complete generation (index-generations.ts).
 * Written on index-builder threads only; the API's thread reads `.meta` through a builder too and
 * only maps the graph and reads a few vectors per search.
 */

/**
 * The HNSW settings (bench/knowledge-vectors.ts, docs/knowledge.md "Search at scale"): int8
 * vectors in the graph (a third of float32's file, the same recall once rescored), M = 32 (0.88
 * against 0.80 for 16 at 2,048 candidates), expansion_add 128 (0.88 against 0.84-0.86 for 64, for
 * about twice the build, which runs on a builder thread).
 */
export const HNSW_SETTINGS = { metric: usearch.MetricKind.Cos, quantization: usearch.ScalarKind.I8, connectivity: 32, expansionAdd: 128 };

/**
 * Candidates asked of the graph per search (its expansion_search): recall@50 0.88 at 100k
 * builtin vectors; 4,096 gains 0.01 for several times the time, and 0.9 is not reached.
 */
export const HNSW_CANDIDATES = 2048;

/** Of those, the graph's best (by int8 similarity) rescored exactly from the float32 vectors: the same recall as rescoring all. */
export const HNSW_RESCORED = 256;

export function hnswIndex(dimensions: number, expansionSearch = HNSW_CANDIDATES): Index {
	return new usearch.Index({
		dimensions,
		metric: HNSW_SETTINGS.metric,
		quantization: HNSW_SETTINGS.quantization,
		connectivity: HNSW_SETTINGS.connectivity,
		expansion_add: HNSW_SETTINGS.expansionAdd,
		expansion_search: expansionSearch,
		multi: false,
	});
}

/** Where one generation's vectors of keys [from, to) are. */
export interface VectorSegment {
	file: string;
	from: number;
	to: number;
}

/**
 * One generation as it travels from a builder thread to the API's thread (typed arrays and packed
 * strings). Not its chunk ids: the graph-search thread reads a search's hits' ids from the `.meta`
 * (GenerationChunkIds), so the API's thread never adopts them (34 MB at a million keys).
 */
export interface VectorIndexTransfer {
	directory: string;
	name: string;
	dimensions: number;
	/** Keys ever given (dead ones included): the next one added is `count`. */
	count: number;
	segments: VectorSegment[];
	/** The int8 column runs (vector-columns.ts), in key order; empty for a generation written before them. */
	columns: VectorSegment[];
	/** Whether the generation has an HNSW graph (sources of dense queries) or only its column runs. */
	graph: boolean;
	/** Per key, an index into documentIds; -1 for a removed key. */
	documentOfKey: Int32Array<ArrayBuffer>;
	documentIds: PackedStrings;
	/** Version per entry of documentIds (READY documents of the generation's snapshot, chunks or not). */
	versions: PackedStrings;
	/** Bytes of the graph file (what a search may map into memory). */
	graphBytes: number;
}

export const sourceIndexDirectory = (root: string, sourceId: string) => join(root, "vectors", sourceId);
export const graphPath = (directory: string, name: string) => join(directory, `${name}.usearch`);
export const segmentPath = (directory: string, file: string) => join(directory, file);

interface MetaHeader {
	dimensions: number;
	count: number;
	segments: VectorSegment[];
	/** Absent in generations written before column runs. */
	columns?: VectorSegment[];
	/** False for a generation of column runs only; absent (a graph) in generations written before. */
	graph?: boolean;
	documents: number;
	lengths: { chunkIds: number; documentIds: number; versions: number };
}

export function writeMeta(
	directory: string,
	generation: { name: string; dimensions: number; count: number; segments: VectorSegment[]; columns: VectorSegment[]; graph: boolean; chunkIds: string[]; documentOfKey: Int32Array; documentIds: string[]; versions: string[] },
): void {
	const chunkIds = packStrings(generation.chunkIds);
	const documentIds = packStrings(generation.documentIds);
	const versions = packStrings(generation.versions);
	const header: MetaHeader = {
		dimensions: generation.dimensions,
		count: generation.count,
		segments: generation.segments,
		columns: generation.columns,
		graph: generation.graph,
		documents: generation.documentIds.length,
		lengths: { chunkIds: chunkIds.bytes.length, documentIds: documentIds.bytes.length, versions: versions.bytes.length },
	};
	const headerBytes = Buffer.from(JSON.stringify(header));
	const prefix = Buffer.alloc(4);
	prefix.writeUInt32LE(headerBytes.length);
	const keys = Buffer.from(generation.documentOfKey.buffer, generation.documentOfKey.byteOffset, generation.count * 4);
	writeAtomically(join(directory, `${generation.name}.meta`), Buffer.concat([prefix, headerBytes, chunkIds.bytes, documentIds.bytes, versions.bytes, keys]));
}

/** Where a `.meta`'s parts are: its header, and the byte offset its chunk ids start at (the rest follow them). */
function metaLayout(bytes: Buffer): { header: MetaHeader; chunkIdsAt: number } {
	const headerLength = bytes.readUInt32LE(0);
	return { header: JSON.parse(bytes.subarray(4, 4 + headerLength).toString("utf8")) as MetaHeader, chunkIdsAt: 4 + headerLength };
}

/** A generation's description, read from its `.meta` (on a builder thread), ready to transfer. */
export function readMeta(directory: string, name: string): VectorIndexTransfer {
	const bytes = readFileSync(join(directory, `${name}.meta`));
	const { header, chunkIdsAt } = metaLayout(bytes);
	let offset = chunkIdsAt + header.lengths.chunkIds;
	const take = (length: number) => {
		// Copied into buffers of their own: transferable, and the file's buffer can go.
		const copy = new Uint8Array(length);
		copy.set(bytes.subarray(offset, offset + length));
		offset += length;
		return copy;
	};
	const documentIds = take(header.lengths.documentIds);
	const versions = take(header.lengths.versions);
	const documentOfKey = new Int32Array(take(header.count * 4).buffer);
	return {
		directory,
		name,
		dimensions: header.dimensions,
		count: header.count,
		segments: header.segments,
		columns: header.columns ?? [],
		graph: header.graph ?? true,
		documentOfKey,
		documentIds: { count: header.documents, bytes: documentIds },
		versions: { count: header.documents, bytes: versions },
		graphBytes: (header.graph ?? true) ? statSync(graphPath(directory, name)).size : 0,
	};
}

/** A generation's chunk id per key ("" for a key removed from the graph), as a fold reads them. */
export function readMetaChunkIds(directory: string, name: string): PackedStrings {
	const bytes = readFileSync(join(directory, `${name}.meta`));
	const { header, chunkIdsAt } = metaLayout(bytes);
	return { count: header.count, bytes: new Uint8Array(bytes.subarray(chunkIdsAt, chunkIdsAt + header.lengths.chunkIds)) };
}

/**
 * A viewed generation's chunk ids, read from its `.meta` one per hit (on the graph-search thread):
 * where each starts is read once (4 bytes a key), the ids themselves stay in the file. The
 * descriptor stays open until close, so a generation another process's fold removed meanwhile
 * stays readable while it is searched.
 */
export class GenerationChunkIds {
	private readonly descriptor: number;
	private readonly starts: Uint32Array;
	private readonly chunkIdsAt: number;
	private bytes = Buffer.alloc(64);

	constructor(directory: string, name: string) {
		this.descriptor = openSync(join(directory, `${name}.meta`), "r");
		try {
			const prefix = Buffer.alloc(4);
			readFully(this.descriptor, prefix, 0);
			const headerBytes = Buffer.alloc(4 + prefix.readUInt32LE(0));
			readFully(this.descriptor, headerBytes, 0);
			const { header, chunkIdsAt } = metaLayout(headerBytes);
			const chunkIds = new Uint8Array(header.lengths.chunkIds);
			readFully(this.descriptor, chunkIds, chunkIdsAt);
			this.starts = stringStarts({ count: header.count, bytes: chunkIds });
			this.chunkIdsAt = chunkIdsAt;
		} catch (error) {
			closeSync(this.descriptor);
			throw error;
		}
	}

	at(key: number): string {
		const start = this.starts[key];
		const length = this.starts[key + 1] - 1 - start;
		if (length > this.bytes.length) this.bytes = Buffer.alloc(2 * length);
		readFully(this.descriptor, this.bytes.subarray(0, length), this.chunkIdsAt + start);
		return this.bytes.toString("utf8", 0, length);
	}

	close(): void {
		closeSync(this.descriptor);
	}
}
