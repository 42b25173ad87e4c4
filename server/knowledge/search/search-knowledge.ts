import { setImmediate as nextTurn } from "node:timers/promises";
import type { EntityManager } from "@mikro-orm/postgresql";
import { driverQuery } from "../../db/raw-connection";
import type { KnowledgeSource } from "../../db/entities";
import type { Egress } from "../../egress/egress";
import type { SecretBox } from "../../shared/crypto";
import { ProviderError } from "../../providers/provider-error";
import { dimensionMismatch, EmbeddingError } from "../embed/embedder";
import { embedderForSource } from "../embed/embedder-for-source";
import { queryLexemes } from "../index/lexical-index";
import type { VectorIndexes } from "../index/vector-indexes";
import { fuseRankings } from "./fuse-rankings";
import { rankLexicallyInSlices } from "./rank-lexically";
import type { KnowledgeSearchCaches } from "./search-caches";
import type { TKnowledgeSearchResult } from "./types";

export interface SearchDependencies {
	secrets: SecretBox;
	/** The source's embedder calls its provider through it (server/egress). */
	egress: Egress;
	search: KnowledgeSearchCaches;
	/** Ranks the vector half through the source's own index (PostgreSQL or Pinecone). */
	vectorIndexes: VectorIndexes;
}

/** How long a search waits for its query's embedding from a provider (ingestion waits 60 s a batch): past it, 504. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 15_000;

/** Results a search returns when its caller names no topK. */
export const DEFAULT_SEARCH_TOP_K = 5;

export interface SearchInput {
	query: string;
	topK?: number;
	minScore?: number;
	/** The query's lexemes if already asked for (earlyQueryLexemes); otherwise the search asks. */
	lexemes?: Promise<Map<string, number>>;
}

/**
 * The query's lexemes, asked of PostgreSQL at once: for a caller that looks its source up
 * meanwhile, or searches several sources with one query (one round trip, not one per source after
 * the lookup). On a pooled connection of its own (driverQuery), beside the caller's queries. The
 * rejection of a request no search awaits (the lookup failed first) is handled.
 */
export function earlyQueryLexemes(em: EntityManager, query: string): Promise<Map<string, number>> {
	const lexemes = queryLexemes(em, query);
	lexemes.catch(() => undefined);
	return lexemes;
}

/**
 * Full-text lexemes as an OR query: websearch_to_tsquery stems and drops stop words, but ANDs
 * every term, which finds nothing for a question phrased in words the text does not all use.
 * OR-ing lets ts_rank_cd rank partial matches; phrases ("...") keep their <-> adjacency.
 */
const FULL_TEXT_QUERY = "replace(websearch_to_tsquery('english', ?)::text, ' & ', ' | ')::tsquery";

/** Bounds the rows ts_rank_cd scores, so a query of very common words stays cheap at 100k chunks. */
const STRICT_CANDIDATES = 300;
const LOOSE_CANDIDATES = 600;

/**
 * Plain PostgreSQL full text, the benchmark's baseline (search itself ranks with the in-memory
 * BM25 index, see lexical-index.ts): chunk ids of READY documents ranked by ts_rank_cd. It needs
 * the GIN index on `search_vector` that the benchmark builds; the product keeps none.
 * Candidates: up to 300 rows matching every term (websearch_to_tsquery as is) plus up to 600
 * matching any term; so rows with all the terms are always ranked, and the cost is bounded.
 */
export async function fullTextRanking(em: EntityManager, sourceId: string, query: string, limit: number): Promise<string[]> {
	// The tsqueries are computed once (materialized CTE), not per row by the filter and the ranking.
	const rows: { id: string }[] = await em.getConnection().execute(
		`with q as materialized (
		   select websearch_to_tsquery('english', ?) as strict, ${FULL_TEXT_QUERY} as loose
		 ), candidates as (
		   (select c.id, c.search_vector from knowledge_chunks c, q where c.source_id = ? and c.search_vector @@ q.strict limit ${STRICT_CANDIDATES})
		   union all
		   (select c.id, c.search_vector from knowledge_chunks c, q where c.source_id = ? and c.search_vector @@ q.loose limit ${LOOSE_CANDIDATES})
		 ), ranked as (
		   select distinct on (x.id) x.id, ts_rank_cd(x.search_vector, q.loose) as rank from candidates x, q order by x.id
		 )
		 select r.id from ranked r
		 join knowledge_chunks c on c.id = r.id
		 join knowledge_documents d on d.id = c.document_id and d.status = 'READY'
		 order by r.rank desc, r.id limit ?`,
		[query, query, sourceId, sourceId, limit],
	);
	return rows.map((row) => row.id);
}

/**
 * The query's vector in the source's space. A provider that cannot embed it (credential rejected or
 * removed, rate limit, outage, vectors of another size) fails the search as it fails a generation:
 * its failure kind's code and status, the provider named in the message (provider-error.ts).
 */
async function embedQuery(em: EntityManager, dependencies: SearchDependencies, source: KnowledgeSource, query: string): Promise<Float32Array> {
	try {
		// One attempt, bounded: a search answers a provider's failure at once (retryable, with its Retry-After) instead of waiting out backoffs.
		const embedder = await embedderForSource(em, dependencies, source, { attempts: 1, timeoutMs: QUERY_EMBEDDING_TIMEOUT_MS });
		const [vector] = await embedder.embed([query]);
		if (source.embeddingDimensions !== null && vector.length !== source.embeddingDimensions) {
			throw new EmbeddingError(dimensionMismatch(embedder.name, vector.length, source.embeddingDimensions), false, "malformed_response");
		}
		return vector;
	} catch (error) {
		if (!(error instanceof EmbeddingError)) throw error;
		throw new ProviderError(error.kind, source.embeddingProvider, error.message, { retryable: error.retryable, retryAfterMs: error.retryAfterMs, cause: error });
	}
}

/**
 * Hybrid retrieval over a source's READY documents: BM25 over PostgreSQL's lexemes (in-memory
 * per-source index) with RM3 query expansion, and vector similarity (the source's embedder and
 * vector index), fused by a weighted sum of normalised scores (fuse-rankings.ts). The
 * expansion, the fusion and its weight were chosen on half of the Cranfield queries and checked on
 * the other half (docs/knowledge.md). The score is the fused value: 1 = best of both lists.
 * The caller has checked that `source` belongs to its workspace.
 */
export async function searchKnowledge(em: EntityManager, dependencies: SearchDependencies, source: KnowledgeSource, input: SearchInput): Promise<TKnowledgeSearchResult[]> {
	const topK = input.topK ?? DEFAULT_SEARCH_TOP_K;
	const candidates = Math.max(50, topK * 4);
	// Both halves start at once: the lexical one does not wait for the embedder's credential lookup.
	const [lexical, semantic] = await Promise.all([
		Promise.all([dependencies.search.lexical.lexiconFor(em, source), input.lexemes ?? queryLexemes(em, input.query)]).then(async ([lexicon, terms]) => {
			// A turn of the loop first: the vector half, ready to go once its query is embedded (a builtin
			// embedding is computed here, at once), reaches the graph-search thread before the ranking takes
			// the loop for a slice; otherwise the two halves ran one after the other whenever the lexemes
			// were ready first.
			await nextTurn();
			const ranked = await rankLexicallyInSlices(lexicon, terms, candidates);
			// Once per process, after this search's own ranking: searches of the source's words, each with an
			// EntityManager of its own; only where a search stays on this machine (no provider's embeddings or
			// Pinecone queries spent on warming code).
			if (source.embeddingProvider === "builtin" && source.vectorStore !== "pinecone") {
				dependencies.search.warmUp.offer(lexicon, (words) => searchKnowledge(em.fork(), dependencies, source, { query: words.join(" ") }));
			}
			return ranked;
		}),
		embedQuery(em, dependencies, source, input.query).then((vector) => dependencies.vectorIndexes.forSource(em, source).query(source.id, vector, candidates)),
	]);
	const ranked = fuseRankings(
		lexical,
		semantic.filter((hit) => hit.similarity > 0).map((hit) => ({ chunkId: hit.chunkId, score: hit.similarity })),
	).filter((hit) => hit.score >= (input.minScore ?? 0));
	if (ranked.length === 0) return [];
	// Vectors may be a moment stale (cache); the READY join drops chunks of deleted or re-ingesting documents.
	const rows = await driverQuery<{ id: string; document_id: string; filename: string; text: string; location: TKnowledgeSearchResult["location"] }>(
		em,
		// The hits, then their documents, by primary key only: as one join, tables not yet analysed
		// after a bulk ingestion got plans that read every chunk of the source (30 ms at 23k
		// chunks, growing with the source) instead of a few rows.
		`with hits as materialized (select c.id, c.source_id, c.document_id, c.text, c.location from knowledge_chunks c where c.id = any($1::text[])),
		 documents as materialized (select d.id, d.filename, d.status from knowledge_documents d where d.id = any(array(select document_id from hits)))
		 select h.id, h.document_id, d.filename, h.text, h.location from hits h join documents d on d.id = h.document_id
		 where h.source_id = $2 and d.status = 'READY'`,
		[ranked.slice(0, topK * 2).map((hit) => hit.chunkId), source.id],
	);
	const byId = new Map(rows.map((row) => [row.id, row]));
	const results: TKnowledgeSearchResult[] = [];
	for (const hit of ranked) {
		const row = byId.get(hit.chunkId);
		if (!row) continue;
		results.push({
			chunkId: row.id,
			documentId: row.document_id,
			filename: row.filename,
			text: row.text,
			score: Number(hit.score.toFixed(6)),
			location: typeof row.location === "string" ? JSON.parse(row.location) : row.location,
		});
		if (results.length === topK) break;
	}
	return results;
}
