import type { EntityManager } from "@mikro-orm/postgresql";
import { type CachedSource, DOCUMENT_VERSION_SQL, type DocumentVersions, SourceChunkCache } from "./source-chunk-cache";

/**
 * BM25 parameters: the usual defaults (Robertson & Zaragoza 2009; Lucene's too). On the tuning
 * half of Cranfield k1 = 1.5 did 0.003 better, within noise: the textbook values stay.
 */
const K1 = 1.2;
const B = 0.75;

/**
 * A heading's words count this many times per occurrence, against 1 for the chunk's own text
 * (a BM25F-style field weight; 2 is the usual title weight, not tuned: the benchmark's documents
 * have no headings). Chunk text never contains its section's headings (they are its location),
 * so without this a question naming a section would not find the section's chunks at all.
 */
export const HEADING_WEIGHT = 2;

/** Tail and dead chunks beyond which the postings are rebuilt in memory (amortised, no database). */
const COMPACTION_MINIMUM = 1024;

/** One chunk as read from PostgreSQL: its lexemes (`to_tsvector('english', …)` output) and its document's version. */
export interface LexicalChunkRow {
	id: string;
	document_id: string;
	version: string;
	lexemes: string | null;
	heading_lexemes: string | null;
}

export interface LexicalHit {
	chunkId: string;
	/** The chunk's slot in its lexicon, for reading its terms back (feedback). */
	slot: number;
	score: number;
}

/**
 * A source's BM25 index, kept up to date document by document. Chunks live in slots; each slot's
 * (term, frequency) pairs are kept chunk-major (for removal, statistics and query expansion), and
 * inverted term-major in two parts: a base of compressed sparse rows in typed arrays (`Int32Array`
 * slots, `Uint8Array` frequencies) for the slots present at the last compaction, and a small tail
 * (term -> slot/frequency pairs) for slots added since. Removed chunks become dead slots, skipped
 * by scoring and left out of the statistics at once. When the tail or the dead slots outgrow an
 * eighth of the index, everything is re-inverted from the chunk-major pairs in memory.
 */
export class SourceLexicon implements CachedSource {
	readonly versions: DocumentVersions = new Map();
	private readonly slotsOfDocument = new Map<string, number[]>();
	private readonly terms = new Map<string, number>();
	private termNames: string[] = [];
	private documentFrequency = new Int32Array(1024);
	/** Slot -> chunk id. */
	private chunkIds: string[] = [];
	private live = new Uint8Array(1024);
	private lengths = new Float32Array(1024);
	/** Slot s's pairs are pairTerms/pairFrequencies[pairStarts[s] .. pairStarts[s + 1]). */
	private pairStarts = new Int32Array(1025);
	private pairTerms = new Int32Array(1 << 16);
	private pairFrequencies = new Uint8Array(1 << 16);
	private slotCount = 0;
	private liveCount = 0;
	private totalLength = 0;
	private baseSlots = 0;
	private offsets = new Int32Array(1);
	private postings = new Int32Array(0);
	private frequencies = new Uint8Array(0);
	private tail = new Map<number, number[]>();
	/** K1 * (1 - B + B * length / average length) per slot, recomputed after each change. */
	private lengthNorms = new Float32Array(1024);
	/**
	 * Per-query scratch, reused: ranking is synchronous, so no two queries share it at once, and
	 * not allocating 100k-entry arrays per query keeps the garbage collector out of the tail latency.
	 */
	private scores = new Float32Array(1024);
	private touched = new Int32Array(1024);

	static fromRows(rows: LexicalChunkRow[]): SourceLexicon {
		const lexicon = new SourceLexicon();
		lexicon.apply([], rows);
		return lexicon;
	}

	/** Chunks held (live). */
	get size(): number {
		return this.liveCount;
	}

	/** Removes the chunks of `removedDocuments`, then adds `rows` (whose documents are recorded at their version). */
	apply(removedDocuments: string[], rows: LexicalChunkRow[]): void {
		for (const documentId of removedDocuments) this.removeDocument(documentId);
		for (const row of rows) this.addChunk(row);
		const tailSlots = this.slotCount - this.baseSlots;
		const deadSlots = this.slotCount - this.liveCount;
		const threshold = Math.max(COMPACTION_MINIMUM, this.slotCount / 8);
		if (this.baseSlots === 0 || tailSlots > threshold || deadSlots > threshold) this.compact();
		this.updateLengthNorms();
	}

	/** Chunks ranked by BM25 for weighted query terms, best first; ties by slot. */
	rank(queryTerms: Map<string, number>, limit: number): LexicalHit[] {
		const { scores, touched, live, lengthNorms, postings, frequencies, offsets } = this;
		let touchedCount = 0;
		for (const [lexeme, queryWeight] of queryTerms) {
			const term = this.terms.get(lexeme);
			if (term === undefined || this.documentFrequency[term] === 0 || queryWeight <= 0) continue;
			const documentFrequency = this.documentFrequency[term];
			// Lucene's non-negative IDF: a term in every chunk still counts a little, never negatively.
			const weight = queryWeight * Math.log(1 + (this.liveCount - documentFrequency + 0.5) / (documentFrequency + 0.5)) * (K1 + 1);
			const end = term + 1 < offsets.length ? offsets[term + 1] : 0;
			for (let position = term + 1 < offsets.length ? offsets[term] : 0; position < end; position++) {
				const slot = postings[position];
				if (live[slot] === 0) continue;
				const frequency = frequencies[position];
				if (scores[slot] === 0) touched[touchedCount++] = slot;
				scores[slot] += (weight * frequency) / (frequency + lengthNorms[slot]);
			}
			const recent = this.tail.get(term);
			if (!recent) continue;
			for (let index = 0; index < recent.length; index += 2) {
				const slot = recent[index];
				if (live[slot] === 0) continue;
				const frequency = recent[index + 1];
				if (scores[slot] === 0) touched[touchedCount++] = slot;
				scores[slot] += (weight * frequency) / (frequency + lengthNorms[slot]);
			}
		}
		// Partial selection: keep the best `limit` in a small sorted array instead of sorting every hit.
		const best: number[] = [];
		for (let index = 0; index < touchedCount; index++) {
			const slot = touched[index];
			const score = scores[slot];
			if (best.length >= limit && score <= scores[best[best.length - 1]]) continue;
			let position = best.length;
			while (position > 0 && (scores[best[position - 1]] < score || (scores[best[position - 1]] === score && best[position - 1] > slot))) position--;
			best.splice(position, 0, slot);
			if (best.length > limit) best.pop();
		}
		const hits = best.map((slot) => ({ chunkId: this.chunkIds[slot], slot, score: scores[slot] }));
		for (let index = 0; index < touchedCount; index++) scores[touched[index]] = 0;
		return hits;
	}

	/** A chunk's lexemes with their (field-weighted) counts. */
	*termsOf(slot: number): Generator<[string, number]> {
		for (let pair = this.pairStarts[slot]; pair < this.pairStarts[slot + 1]; pair++) yield [this.termNames[this.pairTerms[pair]], this.pairFrequencies[pair]];
	}

	/** Live chunks holding the lexeme. */
	documentFrequencyOf(lexeme: string): number {
		const term = this.terms.get(lexeme);
		return term === undefined ? 0 : this.documentFrequency[term];
	}

	/** A chunk's length in (field-weighted) lexeme occurrences. */
	lengthOf(slot: number): number {
		return this.lengths[slot];
	}

	/** Approximate bytes held (typed arrays, chunk ids, vocabulary, tail); for the benchmark and operators. */
	memoryBytes(): number {
		let bytes = 0;
		for (const id of this.chunkIds) bytes += 16 + id.length;
		for (const term of this.termNames) bytes += 16 + term.length + 24;
		for (const recent of this.tail.values()) bytes += 16 + recent.length * 8;
		const arrays = [this.documentFrequency, this.live, this.lengths, this.pairStarts, this.pairTerms, this.pairFrequencies, this.offsets, this.postings, this.frequencies, this.lengthNorms, this.scores, this.touched];
		return arrays.reduce((sum, array) => sum + array.byteLength, bytes);
	}

	private removeDocument(documentId: string): void {
		for (const slot of this.slotsOfDocument.get(documentId) ?? []) {
			if (this.live[slot] === 0) continue;
			this.live[slot] = 0;
			this.liveCount--;
			this.totalLength -= this.lengths[slot];
			for (let pair = this.pairStarts[slot]; pair < this.pairStarts[slot + 1]; pair++) this.documentFrequency[this.pairTerms[pair]]--;
		}
		this.slotsOfDocument.delete(documentId);
		this.versions.delete(documentId);
	}

	private addChunk(row: LexicalChunkRow): void {
		const slot = this.slotCount++;
		this.ensureSlotCapacity(this.slotCount);
		let pair = this.pairStarts[slot];
		let length = 0;
		const addPair = (lexeme: string, count: number) => {
			let term = this.terms.get(lexeme);
			if (term === undefined) {
				term = this.termNames.length;
				this.terms.set(lexeme, term);
				this.termNames.push(lexeme);
				if (term >= this.documentFrequency.length) this.documentFrequency = grown(this.documentFrequency, 2 * this.documentFrequency.length);
			}
			if (pair === this.pairTerms.length) this.ensurePairCapacity(pair + 1);
			// tsvector keeps at most 256 positions per lexeme; one byte holds any count that matters to BM25.
			const frequency = Math.min(255, count);
			this.pairTerms[pair] = term;
			this.pairFrequencies[pair] = frequency;
			pair++;
			length += frequency;
			this.documentFrequency[term]++;
			// Before the first compaction (a full load) everything goes to the base at once.
			if (this.baseSlots > 0 && slot >= this.baseSlots) {
				const recent = this.tail.get(term);
				if (recent) recent.push(slot, frequency);
				else this.tail.set(term, [slot, frequency]);
			}
		};
		if (row.heading_lexemes) {
			// A lexeme may be in both fields: one pair with the weighted sum.
			const counts = new Map<string, number>();
			parseTsvector(row.lexemes ?? "", (lexeme, frequency) => counts.set(lexeme, frequency));
			parseTsvector(row.heading_lexemes, (lexeme, frequency) => counts.set(lexeme, (counts.get(lexeme) ?? 0) + HEADING_WEIGHT * frequency));
			for (const [lexeme, count] of counts) addPair(lexeme, count);
		} else {
			// Lexemes of one tsvector are distinct: straight into pairs, no per-chunk map.
			parseTsvector(row.lexemes ?? "", addPair);
		}
		this.pairStarts[slot + 1] = pair;
		this.chunkIds[slot] = row.id;
		this.live[slot] = 1;
		this.lengths[slot] = length;
		this.liveCount++;
		this.totalLength += length;
		const slots = this.slotsOfDocument.get(row.document_id);
		if (slots) slots.push(slot);
		else this.slotsOfDocument.set(row.document_id, [slot]);
		this.versions.set(row.document_id, row.version);
	}

	/** Drops dead slots and re-inverts every live one into the base; the tail empties. */
	private compact(): void {
		const renumbered = new Int32Array(this.slotCount).fill(-1);
		let next = 0;
		for (let slot = 0; slot < this.slotCount; slot++) if (this.live[slot]) renumbered[slot] = next++;
		const pairCount = Array.from({ length: this.slotCount }, (_, slot) => (this.live[slot] ? this.pairStarts[slot + 1] - this.pairStarts[slot] : 0)).reduce((sum, count) => sum + count, 0);
		// Slot-indexed arrays share one capacity (pairStarts one more), which ensureSlotCapacity relies on.
		const pairStarts = new Int32Array(Math.max(1, next) + 1);
		const pairTerms = new Int32Array(Math.max(1, pairCount));
		const pairFrequencies = new Uint8Array(Math.max(1, pairCount));
		const chunkIds: string[] = new Array(next);
		const lengths = new Float32Array(Math.max(1, next));
		let pair = 0;
		for (let slot = 0; slot < this.slotCount; slot++) {
			const target = renumbered[slot];
			if (target < 0) continue;
			for (let source = this.pairStarts[slot]; source < this.pairStarts[slot + 1]; source++) {
				pairTerms[pair] = this.pairTerms[source];
				pairFrequencies[pair++] = this.pairFrequencies[source];
			}
			pairStarts[target + 1] = pair;
			chunkIds[target] = this.chunkIds[slot];
			lengths[target] = this.lengths[slot];
		}
		for (const [documentId, slots] of this.slotsOfDocument) this.slotsOfDocument.set(documentId, slots.map((slot) => renumbered[slot]));
		// Term-major compressed sparse rows; slots stay ascending within a term.
		const termCount = this.termNames.length;
		const offsets = new Int32Array(termCount + 1);
		for (let index = 0; index < pair; index++) offsets[pairTerms[index] + 1]++;
		for (let term = 0; term < termCount; term++) offsets[term + 1] += offsets[term];
		const cursor = offsets.slice(0, termCount);
		const postings = new Int32Array(pair);
		const frequencies = new Uint8Array(pair);
		for (let slot = 0; slot < next; slot++) {
			for (let index = pairStarts[slot]; index < pairStarts[slot + 1]; index++) {
				const position = cursor[pairTerms[index]]++;
				postings[position] = slot;
				frequencies[position] = pairFrequencies[index];
			}
		}
		this.pairStarts = pairStarts;
		this.pairTerms = pairTerms;
		this.pairFrequencies = pairFrequencies;
		this.chunkIds = chunkIds;
		this.lengths = lengths;
		this.offsets = offsets;
		this.postings = postings;
		this.frequencies = frequencies;
		this.slotCount = next;
		this.baseSlots = next;
		this.tail = new Map();
		this.live = new Uint8Array(Math.max(1, next)).fill(1);
		this.lengthNorms = new Float32Array(Math.max(1, next));
		this.scores = new Float32Array(Math.max(1, next));
		this.touched = new Int32Array(Math.max(1, next));
	}

	private updateLengthNorms(): void {
		const averageLength = this.liveCount > 0 ? this.totalLength / this.liveCount || 1 : 1;
		for (let slot = 0; slot < this.slotCount; slot++) this.lengthNorms[slot] = K1 * (1 - B + (B * this.lengths[slot]) / averageLength);
	}

	private ensureSlotCapacity(slots: number): void {
		if (slots <= this.live.length && slots < this.pairStarts.length) return;
		const capacity = Math.max(slots, Math.ceil(this.live.length * 1.5));
		this.live = grown(this.live, capacity);
		this.lengths = grown(this.lengths, capacity);
		this.lengthNorms = grown(this.lengthNorms, capacity);
		this.pairStarts = grown(this.pairStarts, capacity + 1);
		this.scores = new Float32Array(capacity);
		this.touched = new Int32Array(capacity);
	}

	private ensurePairCapacity(pairs: number): void {
		if (pairs <= this.pairTerms.length) return;
		const capacity = Math.max(pairs, this.pairTerms.length * 2);
		this.pairTerms = grown(this.pairTerms, capacity);
		this.pairFrequencies = grown(this.pairFrequencies, capacity);
	}
}

function grown<T extends Int32Array | Uint8Array | Float32Array>(array: T, length: number): T {
	const next = new (array.constructor as new (length: number) => T)(length);
	next.set(array);
	return next;
}

/** The chunk columns a lexicon is built from; the headings as a tsvector of their own (see HEADING_WEIGHT). */
const CHUNK_ROWS_SQL = `select c.id, c.document_id, ${DOCUMENT_VERSION_SQL} as version, c.search_vector::text as lexemes,
	 case when jsonb_typeof(c.location->'headingPath') = 'array' then to_tsvector('english', c.location->>'headingPath')::text end as heading_lexemes
	 from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
	 where c.source_id = ? and d.status = 'READY'`;

/**
 * Per-source BM25 indexes held in memory, built from the chunks' `search_vector` (PostgreSQL's own
 * `to_tsvector('english', text)`: same stemming and stop words as full-text search) on first
 * search and brought up to date document by document after a change (see SourceChunkCache).
 *
 * Why not rank in PostgreSQL: at 100k chunks a query of frequent words makes the GIN index return
 * tens of thousands of rows and ts_rank/ts_rank_cd detoast every candidate's tsvector (100-200 ms;
 * capping candidates loses quality), and neither knows inverse document frequency, so common words
 * rank as high as rare ones. Here the whole query is a few typed-array passes (single-digit ms at
 * 100k chunks) and BM25 weighs rare terms up. The cost is memory (~10 bytes per distinct
 * (chunk, lexeme), see memoryBytes) and a build on first search.
 */
export class LexicalIndexCache extends SourceChunkCache<SourceLexicon> {
	lexiconFor(em: EntityManager, sourceId: string): Promise<SourceLexicon> {
		return this.current(em, sourceId);
	}

	async memoryBytes(em: EntityManager, sourceId: string): Promise<number> {
		return (await this.lexiconFor(em, sourceId)).memoryBytes();
	}

	/** Chunks ranked by plain BM25 for the query's lexemes (no expansion), best first. */
	async rank(em: EntityManager, sourceId: string, query: string, limit: number): Promise<LexicalHit[]> {
		const [lexicon, terms] = await Promise.all([this.lexiconFor(em, sourceId), queryLexemes(em, query)]);
		return lexicon.rank(terms, limit);
	}

	protected async loadAll(em: EntityManager, sourceId: string): Promise<SourceLexicon> {
		const rows: LexicalChunkRow[] = await em.getConnection().execute(`${CHUNK_ROWS_SQL} order by c.id`, [sourceId]);
		return SourceLexicon.fromRows(rows);
	}

	protected async applyChanges(em: EntityManager, sourceId: string, lexicon: SourceLexicon, changes: { removed: string[]; changed: string[] }): Promise<void> {
		const rows: LexicalChunkRow[] = changes.changed.length
			? await em.getConnection().execute(`${CHUNK_ROWS_SQL} and c.document_id in (?) order by c.id`, [sourceId, changes.changed])
			: [];
		lexicon.apply(changes.removed, rows);
	}
}

/** The query's lexemes with their counts, by PostgreSQL's own analysis (`to_tsvector('english', …)`). */
export async function queryLexemes(em: EntityManager, query: string): Promise<Map<string, number>> {
	const [row] = await em.getConnection().execute<{ lexemes: string }[]>("select to_tsvector('english', ?)::text as lexemes", [query]);
	const terms = new Map<string, number>();
	parseTsvector(row?.lexemes ?? "", (lexeme, frequency) => terms.set(lexeme, frequency));
	return terms;
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
