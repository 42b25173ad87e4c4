import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IndexBuilderPool } from "../../server/knowledge/index/index-builder-pool";
import { IndexFileUpkeep } from "../../server/knowledge/index/index-file-upkeep";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../../server/knowledge/options";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { generatedWords, seededRandom, zipfRanks } from "../helpers/zipf-text";
import { createSource, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

const VOCABULARY = 5_000;

/**
 * The process that ingests a large source brings its index files up to date once the ingestion
 * has ended, so that a search after it opens them instead of building the source's lexicon and
 * vectors from every chunk (minutes at a million chunks), and a process that would fold the same
 * changes takes what the ingesting one wrote instead of folding them again.
 */
describe("index files kept current by ingestion", () => {
	let indexDirectory: string;
	let platform: TestPlatform;
	let reference: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;
	const random = seededRandom(7);
	const words = generatedWords(VOCABULARY);
	const draw = zipfRanks(VOCABULARY);
	/** About `bytes` of Zipf text in paragraphs: at the default chunking, a chunk per 1.4 KB or so. */
	const text = (bytes: number, extra = "") => {
		const sentences: string[] = [];
		for (let length = 0; length < bytes; ) {
			const sentence = `${Array.from({ length: 8 + Math.floor(random() * 12) }, () => words[draw(random)]).join(" ")}.`;
			sentences.push(random() < 0.1 ? `${sentence}\n\n` : sentence);
			length += sentence.length + 1;
		}
		return `${extra} ${sentences.join(" ")}`;
	};
	const ingest = async (documents: { name: string; text: string }[]) => {
		const uploaded = await Promise.all(documents.map((document) => uploadDocument(platform, workspace.apiKey, sourceId, document.name, document.text)));
		let chunks = 0;
		for (const document of uploaded) {
			const ready = await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["READY", "FAILED"], 60_000);
			expect(ready.status).toBe("READY");
			chunks += ready.chunkCount;
		}
		await platform.services.search.upkeep.settled();
		return chunks;
	};
	const current = async (kind: "lexicon" | "vectors") => (await readFile(join(indexDirectory, kind, sourceId, "current"), "utf8").catch(() => "")).trim();
	const queries = () => [`${words[30]} ${words[400]} ${words[2000]}`, `${words[5]} ${words[900]}`, `${words[120]} ${words[60]} ${words[3000]}`, "quincunx marmalade"];
	/** Each query's hits through the API: the same chunks with the same scores as a process building everything from the rows. */
	const expectSameAnswersAsFromRows = async () => {
		for (const query of queries()) {
			const found = await search(platform, workspace.apiKey, sourceId, { query, topK: 10 });
			const expected = await search(reference, workspace.apiKey, sourceId, { query, topK: 10 });
			expect(found.length).toBeGreaterThan(0);
			expect(found.map((hit) => [hit.chunkId, hit.score])).toEqual(expected.map((hit) => [hit.chunkId, hit.score]));
		}
	};

	beforeAll(async () => {
		indexDirectory = await mkdtemp(join(tmpdir(), "index-upkeep-test-"));
		platform = await startTestPlatform({ knowledge: { ...DEFAULT_KNOWLEDGE_OPTIONS, indexDirectory, lexiconFileMinChunks: 1000, vectorIndexMinChunks: 1000 } });
		// The same database, no index directory: every search builds from the rows.
		reference = await startTestPlatform({ databaseUrl: platform.databaseUrl, dataDirectory: platform.dataDirectory });
		workspace = await platform.createWorkspace();
		sourceId = await createSource(platform, workspace.apiKey, "Upkept");
	}, 120_000);

	afterAll(async () => {
		await reference?.stop();
		await platform?.stop();
		await rm(indexDirectory, { recursive: true, force: true });
	});

	it("a source ingested past the thresholds has its files before its first search, which opens them and builds nothing", async () => {
		// Past both thresholds (1,000 chunks).
		expect(
			await ingest([
				{ name: "one.txt", text: text(800_000) },
				{ name: "two.txt", text: text(800_000) },
			]),
		).toBeGreaterThan(1000);
		// Nothing searched it yet: the files are the ingestion's.
		expect(await current("lexicon")).not.toBe("");
		expect(await current("vectors")).not.toBe("");
		const { lexical, vectors, builders } = platform.services.search;
		expect(lexical.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 0 });

		await expectSameAnswersAsFromRows();
		expect(lexical.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 1, rebuilds: 0 });
		expect(vectors.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 1, rebuilds: 0 });
		// Opened, not built: no lexicon, matrix, file or generation made by the searching side.
		expect(lexical.fileStatistics.written).toBe(0);
		expect(builders.completed).toMatchObject({ lexicon: 0, matrix: 0, "lexicon-file": 0, "vector-index": 0 });
	}, 180_000);

	it("a bulk ingestion into a searched source is folded once it has ended; the next search takes that fold instead of folding or building again", async () => {
		const before = { lexicon: await current("lexicon"), vectors: await current("vectors") };
		const { lexical, vectors, builders } = platform.services.search;
		const folds = { lexicon: builders.completed["lexicon-file"], vectors: builders.completed["vector-index"] };
		// More than a searching process absorbs in memory (2,000 chunks: REBUILD_CHANGED_CHUNKS), and than the upkeep leaves unfolded.
		expect(
			await ingest([
				{ name: "three.txt", text: text(1_100_000, "The quincunx of marmalade jars stood on the sill.") },
				{ name: "four.txt", text: text(1_100_000) },
				{ name: "five.txt", text: text(1_100_000) },
			]),
		).toBeGreaterThan(2000);
		const folded = { lexicon: await current("lexicon"), vectors: await current("vectors") };
		expect(folded.lexicon).not.toBe(before.lexicon);
		expect(folded.vectors).not.toBe(before.vectors);

		await expectSameAnswersAsFromRows();
		const [top] = await search(platform, workspace.apiKey, sourceId, { query: "quincunx marmalade", topK: 1 });
		expect(top.filename).toBe("three.txt");
		// The change was too large to absorb: each cache took the current files under the fold lock (the
		// ingestion's fold), found nothing left to fold, and caught up by document versions.
		expect(lexical.statistics.rebuilds).toBe(1);
		expect(vectors.statistics.rebuilds).toBe(1);
		expect(lexical.fileStatistics.written).toBe(0);
		expect(builders.completed).toMatchObject({ lexicon: 0, matrix: 0 });
		// Asked under the lock, and nothing written: the generations are still the ingestion's.
		expect(builders.completed["lexicon-file"]).toBe(folds.lexicon + 1);
		expect(builders.completed["vector-index"]).toBe(folds.vectors + 1);
		expect({ lexicon: await current("lexicon"), vectors: await current("vectors") }).toEqual(folded);
		expect(platform.services.search.upkeep.statistics.failures).toBe(0);
	}, 180_000);

	it("waits while a document of the source is still being ingested, and folds a little growth once none is", async () => {
		// Any change worth a fold (foldChunks 1), so what holds it back is the waiting document alone.
		const upkeep = new IndexFileUpkeep(new IndexBuilderPool(platform.databaseUrl, { threads: 1, threadsPerWorkspace: 1, idleThreads: 0, idleMs: 0 }), {
			directory: indexDirectory,
			lexiconMinChunks: 1000,
			vectorMinChunks: 1000,
			foldChunks: 1,
			quietMs: 60_000,
		});
		const client = new pg.Client({ connectionString: platform.databaseUrl });
		await client.connect();
		try {
			// A small document: the platform's own upkeep (2,000 chunks) leaves the files as they are.
			await ingest([{ name: "six.txt", text: "The orrery in the attic turns on a clockwork of brass." }]);
			const before = { lexicon: await current("lexicon"), vectors: await current("vectors") };
			// Another document of the source mid-ingestion (as a worker's claim leaves it).
			await client.query(
				`insert into knowledge_documents (id, workspace_id, source_id, filename, content_type, byte_size, storage_key, status, attempts, uploaded_at, processing_started_at, created_at, updated_at)
				 values ('doc_upkeep_waiting', $1, $2, 'seven.txt', 'text/plain', 1, 'none', 'PROCESSING', 1, now(), now(), now(), now())`,
				[workspace.workspaceId, sourceId],
			);
			const source = { id: sourceId, workspace: workspace.workspaceId, vectorsInChunkRows: true, denseQueries: false };
			upkeep.documentReady(source);
			await upkeep.settled();
			expect(upkeep.statistics).toEqual({ runs: 1, failures: 0 });
			expect({ lexicon: await current("lexicon"), vectors: await current("vectors") }).toEqual(before);

			// It ended (here: failed): nothing waits, and the next upkeep folds.
			await client.query("update knowledge_documents set status = 'FAILED', failure_reason = 'test' where id = 'doc_upkeep_waiting'");
			upkeep.documentReady(source);
			await upkeep.settled();
			expect(upkeep.statistics).toEqual({ runs: 2, failures: 0 });
			expect(await current("lexicon")).not.toBe(before.lexicon);
			expect(await current("vectors")).not.toBe(before.vectors);
			await expectSameAnswersAsFromRows();
			const [top] = await search(platform, workspace.apiKey, sourceId, { query: "orrery clockwork", topK: 1 });
			expect(top.filename).toBe("six.txt");
		} finally {
			await client.end();
			await upkeep.close();
		}
	}, 180_000);
});
