/**
 * An index-builder thread (server/knowledge/index/index-builder-pool.ts): reads a source's chunks
 * from PostgreSQL through a cursor, a page at a time, builds its lexicon or vector matrix, and
 * hands it back as transferred typed arrays; or re-inverts a lexicon's postings; or embeds an
 * ingested document's chunks with the builtin embedder. One task at a time. The graph-search
 * thread runs this entry too, answering graph requests (graph-views.ts) instead of tasks. Built
 * as its own entry point (scripts/build.ts: dist/index-builder.js); run from source under tsx in
 * tests.
 */
import { parentPort, workerData } from "node:worker_threads";
import pg from "pg";
import { BUILTIN_DIMENSIONS, embedBuiltin } from "../embed/builtin-embedder";
import { lowerSessionPriority } from "../../db/background-sessions";
import { refreshPlannerStatistics } from "../../db/planner-statistics";
import { runAsBackgroundThread } from "../../shared/background-priority";
import type { BuilderThreadData, BuildReply, BuildRequest, BuildTask } from "./index-builder-pool";
import { invertLexicon, type LexicalChunkRow, lexicalChunkRowsSql, SourceLexicon } from "./lexical-index";
import { foldLexiconFile } from "./lexicon-build";
import { readLexiconFile } from "./lexicon-files";
import { type GraphRequest, GraphViews } from "./graph-views";
import { releaseBuffers } from "./release-memory";
import { buffersOf } from "./thread-transfer";
import { withFoldLock } from "./source-chunk-cache";
import { SourceMatrix, type VectorChunkRow, vectorChunkRowsSql } from "./vector-cache";
import { buildVectorIndex, openVectorIndex } from "./vector-index-build";
import type { VectorIndexTransfer } from "./vector-index-files";

const vectorIndexBuffers = (generation: VectorIndexTransfer) => buffersOf(generation.documentIds.bytes, generation.versions.bytes, generation.documentOfKey);

/** Rows per FETCH: a few megabytes of tsvectors or vectors at a time, never the whole source. */
const PAGE_ROWS = 1000;

const { databaseUrl, role, residentColumnBytes } = workerData as BuilderThreadData;
if (role === "builder") runAsBackgroundThread();

/**
 * The chunks of the source's READY documents (all, or those of `parameters[1]`) as ingestion
 * counted them: sizes a matrix or a lexicon's pairs before their rows arrive (a hint; they grow if short).
 */
async function readyChunkCount(connection: pg.Client, parameters: unknown[]): Promise<number> {
	const { rows } = await connection.query<{ count: number }>(
		`select coalesce(sum(d.chunk_count), 0)::int as count from knowledge_documents d
		 where d.source_id = $1 and d.status = 'READY'${parameters.length > 1 ? " and d.id = any($2::text[])" : ""}`,
		parameters,
	);
	return rows[0]?.count ?? 0;
}

async function withConnection<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
	const client = new pg.Client({ connectionString: databaseUrl, application_name: "platform-index-builder" });
	await client.connect();
	// A build's reads (a million rows' lexemes or vectors) are background work, as this thread is.
	await lowerSessionPriority(client);
	try {
		return await use(client);
	} finally {
		await client.end().catch(() => {});
	}
}

/**
 * The query's rows a page at a time, from a cursor in a read-only repeatable-read transaction (so
 * what `before` reads and the rows are one snapshot). The next page is asked for before the
 * current one is handed out: PostgreSQL reads it while this thread builds. `parameters` may depend
 * on what `before` read (a function called after it). The knowledge tables' planner statistics are
 * brought up to date first if a bulk ingestion left them stale (db/planner-statistics.ts).
 */
async function* pagesOf<Row>(client: pg.Client, sql: string, parameters: unknown[] | (() => unknown[]), before?: (client: pg.Client) => Promise<void>): AsyncGenerator<Row[]> {
	const fetchPage = () => client.query<Row & pg.QueryResultRow>(`fetch ${PAGE_ROWS} from chunk_rows`);
	let next: ReturnType<typeof fetchPage> | undefined;
	await refreshPlannerStatistics(client);
	await client.query("begin isolation level repeatable read read only");
	try {
		await before?.(client);
		await client.query(`declare chunk_rows no scroll cursor for ${sql}`, typeof parameters === "function" ? parameters() : parameters);
		next = fetchPage();
		for (;;) {
			const { rows } = await next;
			if (rows.length === 0) break;
			next = fetchPage();
			yield rows;
		}
	} finally {
		next?.catch(() => {});
		await client.query("rollback").catch(() => {});
	}
}

async function run(task: BuildTask): Promise<{ result: unknown; buffers: ArrayBuffer[] }> {
	switch (task.kind) {
		case "lexicon":
			return withConnection(async (client) => {
				const parameters = task.documentIds ? [task.sourceId, task.documentIds] : [task.sourceId];
				let expected = 0;
				const countChunks = async (connection: pg.Client) => {
					expected = await readyChunkCount(connection, parameters);
				};
				const lexicon = new SourceLexicon();
				let reserved = false;
				for await (const page of pagesOf<LexicalChunkRow>(client, lexicalChunkRowsSql(task.documentIds ? "some" : "all"), parameters, countChunks)) {
					lexicon.addRows(page);
					// Sized once, from the first page's pairs per chunk: the pairs are not copied while they grow.
					if (!reserved) lexicon.reserveFor(expected);
					reserved = true;
				}
				// A whole source is inverted here; a few changed documents are only absorbed (their pairs) where the lexicon lives.
				if (!task.documentIds) lexicon.settle();
				const { transfer, buffers } = lexicon.toTransfer();
				return { result: transfer, buffers };
			});
		case "open-lexicon": {
			const opened = readLexiconFile(task.directory, task.sourceId, { name: task.name, inPieces: true });
			return { result: opened?.transfer ?? null, buffers: opened?.buffers ?? [] };
		}
		case "lexicon-file":
			return withConnection(async (client) => ({
				result: await withFoldLock(client, "lexicon", task.sourceId, () => foldLexiconFile(client, pagesOf, task.directory, task.sourceId, { condition: task.condition })),
				buffers: [],
			}));
		case "matrix":
			return withConnection(async (client) => {
				const matrix = new SourceMatrix();
				if (task.dimensions) matrix.dimensions = task.dimensions;
				const sql = vectorChunkRowsSql(task.documentIds ? "some" : "all");
				const parameters = task.documentIds ? [task.sourceId, task.documentIds] : [task.sourceId];
				let expected = 0;
				const countChunks = async (connection: pg.Client) => {
					expected = await readyChunkCount(connection, parameters);
				};
				for await (const rows of pagesOf<VectorChunkRow>(client, sql, parameters, countChunks)) {
					matrix.apply([], rows);
					// Sized once, after the first row fixed the dimensions: the matrix is never copied while it grows.
					matrix.reserve(expected);
				}
				const { transfer, buffers } = matrix.toTransfer();
				return { result: transfer, buffers };
			});
		case "vector-index":
			return withConnection(async (client) => {
				const built = await withFoldLock(client, "vectors", task.sourceId, () => buildVectorIndex(client, pagesOf, task.directory, task.sourceId, { graph: task.graph, condition: task.condition }));
				return { result: built, buffers: built ? vectorIndexBuffers(built) : [] };
			});
		case "open-vector-index": {
			const opened = openVectorIndex(task.directory, task.sourceId);
			return { result: opened, buffers: opened ? vectorIndexBuffers(opened) : [] };
		}
		case "invert-lexicon": {
			const inverted = invertLexicon(task.pairs);
			const { renumbered, lengths, pairStarts, pairTerms, pairFrequencies, offsets, postings, frequencies, termBounds } = inverted;
			return { result: inverted, buffers: buffersOf(renumbered, lengths, pairStarts, pairTerms, pairFrequencies, offsets, postings, frequencies, termBounds) };
		}
		case "release-buffers":
			releaseBuffers(task.buffers);
			return { result: null, buffers: [] };
		case "embed-builtin": {
			const vectors = new Float32Array(task.texts.length * BUILTIN_DIMENSIONS);
			task.texts.forEach((text, index) => vectors.set(embedBuiltin(text), index * BUILTIN_DIMENSIONS));
			return { result: vectors, buffers: [vectors.buffer] };
		}
	}
}

/** Build tasks; or, on the graph-search thread (graph-search-thread.ts), which runs this entry too, graph requests. */
function listen(): void {
	const graphs = new GraphViews(residentColumnBytes);
	parentPort?.on("message", (message: BuildRequest | GraphRequest) => {
		if ("op" in message) {
			const answer = graphs.handle(message);
			if (answer) parentPort?.postMessage(answer.reply, answer.transfer);
			return;
		}
		const { id, task } = message;
		run(task).then(
			({ result, buffers }) => parentPort?.postMessage({ id, result } as BuildReply, buffers),
			(error: unknown) => parentPort?.postMessage({ id, failure: error instanceof Error ? error.message : String(error) } satisfies BuildReply),
		);
	});
}

listen();
