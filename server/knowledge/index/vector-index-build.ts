/**
 * Building and folding a source's HNSW index files (vector-index-files.ts); runs on index-builder
 * threads only (index-builder-thread.ts): reading a million vectors and inserting them into a
 * graph takes minutes, and a usearch index cannot move between threads, so the API's thread gets
 * the saved file and maps it.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import type pg from "pg";
import type { Index } from "usearch";
import { type FoldCondition, foldIsDue, readyDocumentVersions } from "./source-chunk-cache";
import { unpackStrings } from "./thread-transfer";
import { type VectorChunkRow, vectorChunkRowsSql } from "./vector-cache";
import { currentGeneration, newGenerationName, publishGeneration, removeOldGenerations } from "./index-generations";
import { nextColumnRuns } from "./vector-columns";
import { graphPath, hnswIndex, readMeta, readMetaChunkIds, segmentPath, sourceIndexDirectory, type VectorIndexTransfer, type VectorSegment, writeMeta } from "./vector-index-files";

/** Pages of rows from a cursor over `sql`, whose parameters are known once `before` has run in the same snapshot. */
export type PageReader = <Row>(client: pg.Client, sql: string, parameters: unknown[] | (() => unknown[]), before?: (client: pg.Client) => Promise<void>) => AsyncGenerator<Row[]>;

/**
 * Insertion threads per build: every core, up to four. They inherit the builder thread's background
 * priority (server/shared/background-priority.ts), so they take the cores requests leave idle; at
 * a million chunks a build on one thread took 20 minutes, during which every search scanned the 2 GB
 * exact matrix instead of the graph.
 */
const INSERT_THREADS = Math.max(1, Math.min(4, availableParallelism()));

export function openVectorIndex(root: string, sourceId: string): VectorIndexTransfer | null {
	const directory = sourceIndexDirectory(root, sourceId);
	const name = currentGeneration(directory);
	return name ? readMeta(directory, name) : null;
}

/**
 * A new generation of the source's index: from nothing, every READY chunk; from the current
 * generation, the chunks of documents removed or re-ingested since removed from it (dead keys, and
 * out of its graph, loaded into memory here), and those of new or re-ingested documents added
 * (their vectors in a new vector file and column run, and in the graph). `graph`: whether the
 * generation has an HNSW graph (dense queries) or only column runs (sparse ones: minutes less of
 * a build at a million chunks). One repeatable-read snapshot, so the generation's document versions
 * are exactly what it holds. Null when the source has no vectors. Under the source's fold lock
 * (source-chunk-cache.ts, withFoldLock); with `condition`, the current generation is left as it is
 * (and returned, null when there is none) when the condition says so.
 */
export async function buildVectorIndex(
	client: pg.Client,
	pagesOf: PageReader,
	root: string,
	sourceId: string,
	options: { graph: boolean; condition?: FoldCondition },
): Promise<VectorIndexTransfer | null> {
	const directory = sourceIndexDirectory(root, sourceId);
	mkdirSync(directory, { recursive: true });
	const baseName = currentGeneration(directory);
	const current = baseName ? readMeta(directory, baseName) : null;
	// A generation without the graph this one needs starts over (a generation written before column runs keeps its keys).
	const base = current && (current.graph || !options.graph) ? current : null;
	const baseDocuments = base ? unpackStrings(base.documentIds) : [];
	const baseVersions = base ? unpackStrings(base.versions) : [];
	if (options.condition) {
		const held = base && new Map(baseDocuments.map((id, position) => [id, baseVersions[position]]));
		if (!(await foldIsDue(client, sourceId, held, options.condition))) return base;
	}
	let dimensions = base?.dimensions ?? 0;
	let index: Index | null = null;
	if (base && baseName && options.graph) {
		index = hnswIndex(dimensions);
		index.load(graphPath(directory, baseName));
	}
	const chunkIds = base ? unpackStrings(readMetaChunkIds(directory, base.name)) : [];
	const documentOfKey: number[] = base ? Array.from(base.documentOfKey) : [];
	const name = newGenerationName(baseName);
	const segment: VectorSegment = { file: `${name}.f32`, from: base?.count ?? 0, to: base?.count ?? 0 };

	const documentIds: string[] = [];
	const versions: string[] = [];
	const documentIndex = new Map<string, number>();
	let toRead: string[] = [];
	const readDocuments = async (connection: pg.Client) => {
		const now = await readyDocumentVersions(connection, sourceId);
		for (const [id, version] of now) {
			documentIndex.set(id, documentIds.length);
			documentIds.push(id);
			versions.push(version);
		}
		// Keys of documents kept point at their new document index; the others' keys leave the graph.
		const kept = new Set<number>();
		const removedKeys: bigint[] = [];
		baseDocuments.forEach((id, position) => {
			if (now.get(id) === baseVersions[position]) kept.add(position);
		});
		for (let key = 0; key < documentOfKey.length; key++) {
			const document = documentOfKey[key];
			if (document < 0) continue;
			if (kept.has(document)) {
				documentOfKey[key] = documentIndex.get(baseDocuments[document]) ?? -1;
			} else {
				documentOfKey[key] = -1;
				chunkIds[key] = "";
				removedKeys.push(BigInt(key));
			}
		}
		if (index && removedKeys.length > 0) index.remove(BigUint64Array.from(removedKeys));
		const keptIds = new Set([...kept].map((position) => baseDocuments[position]));
		toRead = documentIds.filter((id) => !keptIds.has(id));
	};

	const descriptor = openSync(segmentPath(directory, segment.file), "w");
	try {
		const sql = vectorChunkRowsSql(base ? "some" : "all");
		for await (const rows of pagesOf<VectorChunkRow>(client, sql, () => (base ? [sourceId, toRead] : [sourceId]), readDocuments)) {
			if (dimensions === 0 && rows.length > 0) dimensions = rows[0].embedding.length / 4;
			const usable = rows.filter((row) => row.embedding.length === dimensions * 4);
			if (usable.length === 0) continue;
			if (options.graph) index ??= hnswIndex(dimensions);
			const vectors = new Float32Array(usable.length * dimensions);
			const keys = new BigUint64Array(usable.length);
			usable.forEach((row, position) => {
				const key = segment.to++;
				keys[position] = BigInt(key);
				const bytes = new Uint8Array(row.embedding.buffer, row.embedding.byteOffset, row.embedding.length);
				new Uint8Array(vectors.buffer).set(bytes, position * dimensions * 4);
				writeSync(descriptor, bytes, 0, bytes.length, (key - segment.from) * dimensions * 4);
				chunkIds[key] = row.id;
				documentOfKey[key] = documentIndex.get(row.document_id) ?? -1;
			});
			index?.add(keys, vectors, INSERT_THREADS);
		}
	} finally {
		closeSync(descriptor);
	}
	if (segment.to === segment.from) rmSync(segmentPath(directory, segment.file), { force: true });
	if (dimensions === 0 || segment.to === 0) return null;
	const segments = [...(base?.segments ?? []), ...(segment.to > segment.from ? [segment] : [])];
	const columns = nextColumnRuns(directory, name, segments, dimensions, base?.columns ?? [], segment);
	if (index) {
		const temporary = `${graphPath(directory, name)}.tmp`;
		index.save(temporary);
		renameSync(temporary, graphPath(directory, name));
	}
	const graph = index !== null;
	writeMeta(directory, { name, dimensions, count: segment.to, segments, columns, graph, chunkIds, documentOfKey: Int32Array.from(documentOfKey), documentIds, versions });
	publishGeneration(directory, name);
	removeOldGenerations(directory, [...(graph ? [`${name}.usearch`] : []), `${name}.meta`, ...[...segments, ...columns].map((used) => used.file)]);
	return readMeta(directory, name);
}
