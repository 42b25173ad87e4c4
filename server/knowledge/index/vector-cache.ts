import type { EntityManager } from "@mikro-orm/postgresql";
import { NotifiedCache } from "../../db/notified-cache";
import type { DatabaseNotifications } from "../../db/notifications";
import { KNOWLEDGE_CHUNKS_CHANNEL } from "./vector-notifications";

interface SourceMatrix {
	chunkIds: string[];
	dimensions: number;
	/**
	 * Dimension-major (column i holds dimension i of every chunk): a query touches only its
	 * non-zero dimensions, each a contiguous run. Builtin query vectors have a few dozen non-zero
	 * buckets of 512, so a 100k-chunk search reads a few megabytes instead of 200.
	 */
	matrix: Float32Array;
	/** Per-query scratch, reused (scoring is synchronous): no 100k-entry allocation per query for the GC. */
	scores: Float32Array;
}

/**
 * Per-source vectors held in memory as one Float32Array, loaded from PostgreSQL on first search
 * and dropped when the source's vectors change. Without pgvector, similarity is a brute-force dot
 * product; a contiguous matrix keeps that within a few tens of milliseconds at 100k chunks.
 * Changes arrive by LISTEN/NOTIFY (`knowledge_chunks`) so every instance (and worker) agrees.
 */
export class VectorCache {
	private readonly matrices: NotifiedCache<SourceMatrix>;

	constructor(notifications: DatabaseNotifications) {
		this.matrices = new NotifiedCache(notifications, KNOWLEDGE_CHUNKS_CHANNEL, { tagOf: (sourceId) => sourceId });
	}

	matrixFor(em: EntityManager, sourceId: string): Promise<SourceMatrix> {
		return this.matrices.get(sourceId, () => loadMatrix(em, sourceId));
	}

	/** Nearest chunks by dot product (cosine: vectors are normalised), best first. */
	async nearest(em: EntityManager, sourceId: string, query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		const { chunkIds, dimensions, matrix, scores } = await this.matrixFor(em, sourceId);
		if (chunkIds.length === 0 || dimensions !== query.length) return [];
		const count = chunkIds.length;
		scores.fill(0);
		const used: number[] = [];
		for (let dimension = 0; dimension < dimensions; dimension++) if (query[dimension] !== 0) used.push(dimension);
		// Four columns per pass: a quarter of the passes over `scores` (1.6x faster at 100k chunks).
		let next = 0;
		for (; next + 3 < used.length; next += 4) {
			const [a, b, c, d] = [used[next] * count, used[next + 1] * count, used[next + 2] * count, used[next + 3] * count];
			const [wa, wb, wc, wd] = [query[used[next]], query[used[next + 1]], query[used[next + 2]], query[used[next + 3]]];
			for (let row = 0; row < count; row++) scores[row] += wa * matrix[a + row] + wb * matrix[b + row] + wc * matrix[c + row] + wd * matrix[d + row];
		}
		for (; next < used.length; next++) {
			const offset = used[next] * count;
			const weight = query[used[next]];
			for (let row = 0; row < count; row++) scores[row] += weight * matrix[offset + row];
		}
		return topIndices(scores, limit).map((index) => ({ chunkId: chunkIds[index], similarity: scores[index] }));
	}
}

/** Indices of the `limit` largest scores, best first, without sorting everything. */
function topIndices(scores: Float32Array, limit: number): number[] {
	const best: number[] = [];
	let floor = Number.NEGATIVE_INFINITY;
	for (let index = 0; index < scores.length; index++) {
		const score = scores[index];
		if (best.length >= limit && score <= floor) continue;
		let position = best.length;
		while (position > 0 && scores[best[position - 1]] < score) position--;
		best.splice(position, 0, index);
		if (best.length > limit) best.pop();
		floor = scores[best[best.length - 1]];
	}
	return best;
}

async function loadMatrix(em: EntityManager, sourceId: string): Promise<SourceMatrix> {
	const rows: { id: string; embedding: Buffer }[] = await em
		.getConnection()
		.execute("select id, embedding from knowledge_chunks where source_id = ? and embedding is not null order by id", [sourceId]);
	const dimensions = rows.length ? rows[0].embedding.length / 4 : 0;
	const usable = rows.filter((row) => row.embedding.length === dimensions * 4);
	const count = usable.length;
	const matrix = new Float32Array(count * dimensions);
	usable.forEach((row, index) => {
		const embedding = row.embedding;
		for (let dimension = 0; dimension < dimensions; dimension++) matrix[dimension * count + index] = embedding.readFloatLE(dimension * 4);
	});
	return { chunkIds: usable.map((row) => row.id), dimensions, matrix, scores: new Float32Array(count) };
}
