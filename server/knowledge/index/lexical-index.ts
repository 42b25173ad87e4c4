import type { EntityManager } from "@mikro-orm/postgresql";
import { NotifiedCache } from "../../db/notified-cache";
import type { DatabaseNotifications } from "../../db/notifications";
import { KNOWLEDGE_CHUNKS_CHANNEL } from "./vector-notifications";

/**
 * BM25 parameters: the usual defaults (Robertson & Zaragoza 2009; Lucene's too). Not tuned on
 * the benchmark, so they carry no overfitting.
 */
const K1 = 1.2;
const B = 0.75;

interface SourceLexicon {
	chunkIds: string[];
	/** Lexeme -> term number. */
	terms: Map<string, number>;
	/** Term t's postings are postings[offsets[t] .. offsets[t + 1]) (compressed sparse rows). */
	offsets: Int32Array;
	/** Chunk numbers (indices into chunkIds), ascending within a term. */
	postings: Int32Array;
	/** Occurrences of the term in the chunk, capped at 255 (tsvector keeps at most 256 positions). */
	frequencies: Uint8Array;
	/** K1 * (1 - B + B * length / average length) per chunk: the length part of BM25, precomputed. */
	lengthNorms: Float32Array;
	/**
	 * Per-query scratch, reused: ranking is synchronous, so no two queries share it at once, and
	 * not allocating 100k-entry arrays per query keeps the garbage collector out of the tail latency.
	 */
	scores: Float32Array;
	touched: Int32Array;
}

export interface LexicalHit {
	chunkId: string;
	score: number;
}

/**
 * Per-source BM25 index held in memory, built from the chunks' `search_vector` (PostgreSQL's own
 * `to_tsvector('english', text)`: same stemming and stop words as full-text search) on first
 * search and dropped when the source's chunks change (LISTEN/NOTIFY `knowledge_vectors`, like the
 * vector cache).
 *
 * Why not rank in PostgreSQL: at 100k chunks a query of frequent words makes the GIN index return
 * tens of thousands of rows and ts_rank/ts_rank_cd detoast every candidate's tsvector (100-200 ms;
 * capping candidates loses quality), and neither knows inverse document frequency, so common words
 * rank as high as rare ones. Here the whole query is a few typed-array passes (single-digit ms at
 * 100k chunks) and BM25 weighs rare terms up. The cost is memory (~5-6 bytes per distinct
 * (chunk, lexeme), see memoryBytes) and a build on first search.
 */
export class LexicalIndexCache {
	private readonly lexicons: NotifiedCache<SourceLexicon>;

	constructor(notifications: DatabaseNotifications) {
		this.lexicons = new NotifiedCache(notifications, KNOWLEDGE_CHUNKS_CHANNEL, { tagOf: (sourceId) => sourceId });
	}

	lexiconFor(em: EntityManager, sourceId: string): Promise<SourceLexicon> {
		return this.lexicons.get(sourceId, () => loadLexicon(em, sourceId));
	}

	/** Approximate bytes held for a source (typed arrays, chunk ids, vocabulary); for the benchmark and operators. */
	async memoryBytes(em: EntityManager, sourceId: string): Promise<number> {
		const lexicon = await this.lexiconFor(em, sourceId);
		let strings = 0;
		for (const id of lexicon.chunkIds) strings += 16 + id.length;
		for (const term of lexicon.terms.keys()) strings += 16 + term.length + 24;
		const arrays = [lexicon.offsets, lexicon.postings, lexicon.frequencies, lexicon.lengthNorms, lexicon.scores, lexicon.touched];
		return arrays.reduce((sum, array) => sum + array.byteLength, strings);
	}

	/** Chunks ranked by BM25 for the query's lexemes (PostgreSQL's analysis of the query), best first. */
	async rank(em: EntityManager, sourceId: string, query: string, limit: number): Promise<LexicalHit[]> {
		const [lexicon, [row]] = await Promise.all([
			this.lexiconFor(em, sourceId),
			em.getConnection().execute<{ lexemes: string }[]>("select to_tsvector('english', ?)::text as lexemes", [query]),
		]);
		const queryTerms = new Map<string, number>();
		parseTsvector(row?.lexemes ?? "", (lexeme, frequency) => queryTerms.set(lexeme, frequency));
		return rankBm25(lexicon, queryTerms, limit);
	}
}

function rankBm25(lexicon: SourceLexicon, queryTerms: Map<string, number>, limit: number): LexicalHit[] {
	const { scores, touched } = lexicon;
	const count = lexicon.chunkIds.length;
	let touchedCount = 0;
	for (const [lexeme, queryFrequency] of queryTerms) {
		const term = lexicon.terms.get(lexeme);
		if (term === undefined) continue;
		const start = lexicon.offsets[term];
		const end = lexicon.offsets[term + 1];
		const documentFrequency = end - start;
		// Lucene's non-negative IDF: a term in every chunk still counts a little, never negatively.
		const weight = queryFrequency * Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5)) * (K1 + 1);
		for (let position = start; position < end; position++) {
			const chunk = lexicon.postings[position];
			const frequency = lexicon.frequencies[position];
			if (scores[chunk] === 0) touched[touchedCount++] = chunk;
			scores[chunk] += (weight * frequency) / (frequency + lexicon.lengthNorms[chunk]);
		}
	}
	// Partial selection: keep the best `limit` in a small sorted array instead of sorting every hit.
	const best: number[] = [];
	for (let index = 0; index < touchedCount; index++) {
		const chunk = touched[index];
		const score = scores[chunk];
		if (best.length >= limit && score <= scores[best[best.length - 1]]) continue;
		let position = best.length;
		while (position > 0 && (scores[best[position - 1]] < score || (scores[best[position - 1]] === score && best[position - 1] > chunk))) position--;
		best.splice(position, 0, chunk);
		if (best.length > limit) best.pop();
	}
	const hits = best.map((chunk) => ({ chunkId: lexicon.chunkIds[chunk], score: scores[chunk] }));
	for (let index = 0; index < touchedCount; index++) scores[touched[index]] = 0;
	return hits;
}

async function loadLexicon(em: EntityManager, sourceId: string): Promise<SourceLexicon> {
	const chunkIds: string[] = [];
	const terms = new Map<string, number>();
	// First pass: each chunk's (term, frequency) pairs, appended to growable typed arrays.
	let pairTerms = new Int32Array(1 << 16);
	let pairFrequencies = new Uint8Array(1 << 16);
	let pairs = 0;
	const chunkStarts: number[] = [0];
	const lengths: number[] = [];
	const rows: { id: string; lexemes: string | null }[] = await em
		.getConnection()
		.execute("select id, search_vector::text as lexemes from knowledge_chunks where source_id = ? order by id", [sourceId]);
	for (const row of rows) {
		let length = 0;
		parseTsvector(row.lexemes ?? "", (lexeme, frequency) => {
			let term = terms.get(lexeme);
			if (term === undefined) {
				term = terms.size;
				terms.set(lexeme, term);
			}
			if (pairs === pairTerms.length) {
				const grownTerms = new Int32Array(pairTerms.length * 2);
				grownTerms.set(pairTerms);
				pairTerms = grownTerms;
				const grownFrequencies = new Uint8Array(pairFrequencies.length * 2);
				grownFrequencies.set(pairFrequencies);
				pairFrequencies = grownFrequencies;
			}
			pairTerms[pairs] = term;
			pairFrequencies[pairs] = Math.min(255, frequency);
			pairs++;
			length += frequency;
		});
		chunkIds.push(row.id);
		chunkStarts.push(pairs);
		lengths.push(length);
	}
	// Second pass: invert into compressed sparse rows, term by term; chunks stay ascending.
	const offsets = new Int32Array(terms.size + 1);
	for (let pair = 0; pair < pairs; pair++) offsets[pairTerms[pair] + 1]++;
	for (let term = 0; term < terms.size; term++) offsets[term + 1] += offsets[term];
	const cursor = offsets.slice(0, terms.size);
	const postings = new Int32Array(pairs);
	const frequencies = new Uint8Array(pairs);
	for (let chunk = 0; chunk < chunkIds.length; chunk++) {
		for (let pair = chunkStarts[chunk]; pair < chunkStarts[chunk + 1]; pair++) {
			const slot = cursor[pairTerms[pair]]++;
			postings[slot] = chunk;
			frequencies[slot] = pairFrequencies[pair];
		}
	}
	const averageLength = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, lengths.length) || 1;
	const lengthNorms = Float32Array.from(lengths, (length) => K1 * (1 - B + (B * length) / averageLength));
	const scratch = { scores: new Float32Array(chunkIds.length), touched: new Int32Array(chunkIds.length) };
	return { chunkIds, terms, offsets, postings, frequencies, lengthNorms, ...scratch };
}

/**
 * Walks tsvector output (`'lexeme':1,4B 'other':2`): each lexeme with its number of positions.
 * In the output a quote inside a lexeme is doubled and a backslash escaped; a lexeme without
 * positions (a stripped tsvector) counts once.
 */
export function parseTsvector(text: string, visit: (lexeme: string, frequency: number) => void): void {
	let index = 0;
	while (index < text.length) {
		if (text[index] !== "'") {
			index++;
			continue;
		}
		let lexeme = "";
		index++;
		while (index < text.length) {
			const character = text[index];
			if (character === "'" && text[index + 1] === "'") {
				lexeme += "'";
				index += 2;
			} else if (character === "'") {
				index++;
				break;
			} else if (character === "\\") {
				lexeme += text[index + 1] ?? "";
				index += 2;
			} else {
				lexeme += character;
				index++;
			}
		}
		let frequency = 1;
		if (text[index] === ":") {
			while (index < text.length && text[index] !== " ") {
				if (text[index] === ",") frequency++;
				index++;
			}
		}
		visit(lexeme, frequency);
	}
}
