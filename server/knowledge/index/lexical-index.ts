import { rm } from "node:fs/promises";
import type { EntityManager } from "@mikro-orm/postgresql";
import { driverQuery } from "../../db/raw-connection";
import type { DatabaseNotifications } from "../../db/notifications";
import { runToEnd, SlicedTurns, type Steps } from "../../shared/time-slices";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../options";
import type { IndexBuilderPool } from "./index-builder-pool";
import { sourceLexiconDirectory } from "./index-generations";
import type { SearchMemoryBudget } from "./search-memory-budget";
import { type CachedSource, DOCUMENT_VERSION_SQL, type DocumentVersions, type LoadOptions, REBUILD_CHANGED_CHUNKS, SourceChunkCache, type SourceRef } from "./source-chunk-cache";
import { descriptorCloser, LexiconPieces, type LexiconPiecesLocation, type PairRange } from "./lexicon-pieces";
import { type DenseColumns, IMPACT_STEPS, type ImpactList, type ImpactScratch, impactScratch, impactTopKSteps } from "./impact-top-k";
import { type PostingList, type PostingRange, prunedTopKSteps, type RankingWindow, rankingWindow, type ScoredSlots } from "./pruned-top-k";
import { buffersOf, groupedByCounting, inSlices, type PackedStrings, PackedStringTable, packStrings, stringStarts, unpackStrings } from "./thread-transfer";
import { SlotIds } from "./slot-ids";

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

/**
 * Bounds are computed for an average chunk length this much above the actual one: a chunk's
 * BM25 saturation only grows with the average, so they stay valid while changes since the last
 * compaction raise the average by up to a tenth (past that, ranking is exhaustive until the next
 * compaction, which is then due). The cost is bounds a few percent looser.
 */
const BOUND_AVERAGE_SLACK = 1.1;

/** The average chunk length a compaction's bounds assume: BOUND_AVERAGE_SLACK above the mean of `slots` chunks' lengths. */
export function boundAverageOf(totalLength: number, slots: number): number {
	return (slots > 0 ? totalLength / slots || 1 : 1) * BOUND_AVERAGE_SLACK;
}

/** A posting's BM25 saturation f / (f + norm) where the average chunk length is `averageLength` (an upper bound for any smaller average). */
export function saturation(frequency: number, length: number, averageLength: number): number {
	return frequency / (frequency + K1 * (1 - B + (B * length) / averageLength));
}

/**
 * A frequent word's base postings (slots below `rows`) as columns (impact-top-k.ts): its
 * frequencies, and its impacts: each posting's saturation at the bound average in IMPACT_STEPS-ths
 * of `bound` (the word's largest), rounded up; in `spare`'s arrays (another word's columns, no
 * longer held) when they are of that size, since fresh pages cost more to fault in than to clear.
 */
function* denseColumnsSteps(list: PostingRange, rows: number, bound: number, lengths: Float32Array, boundAverage: number, spare: DenseColumns | null): Steps<DenseColumns> {
	const reused = spare !== null && spare.frequencies.length === rows;
	const frequencies = reused ? spare.frequencies.fill(0) : new Uint8Array(rows);
	const impacts = reused ? spare.impacts.fill(0) : new Int8Array(rows);
	const scale = bound > 0 ? IMPACT_STEPS / bound : 0;
	// A word in most of a million chunks takes 8-13 ms here: made in pieces, between which the event loop may run.
	for (let from = list.start; from < list.end; from += COLUMN_BUILD_STEP) {
		addToColumns(list, from, Math.min(list.end, from + COLUMN_BUILD_STEP), frequencies, impacts, scale, lengths, boundAverage);
		yield;
	}
	return { frequencies, impacts };
}

/** Postings made into columns between two pauses (about a millisecond). */
const COLUMN_BUILD_STEP = 131_072;

/**
 * A frequent word's base columns made whole into `into` (its arrays the size of the base's
 * slots): what denseColumnsSteps makes, for a lexicon file's builder, which writes them into the
 * file for rankings to read (lexicon-files.ts) instead of making them on the API's thread.
 */
export function fillDenseColumns(list: PostingRange, bound: number, lengths: Float32Array, boundAverage: number, into: DenseColumns): void {
	into.frequencies.fill(0);
	into.impacts.fill(0);
	addToColumns(list, list.start, list.end, into.frequencies, into.impacts, bound > 0 ? IMPACT_STEPS / bound : 0, lengths, boundAverage);
}

/** Which words' base columns a lexicon file's builder writes: those a ranking with these options takes as frequent (SourceLexicon.rankSteps). */
export type FileColumnThresholds = Pick<ColumnRankingOptions, "minimumSlots" | "frequentShare">;

/** Whether a word whose base list holds `postings` of a lexicon's `slots` is frequent under `thresholds` (ranked with its columns, and given them in a file). */
function isFrequent(postings: number, slots: number, thresholds: FileColumnThresholds): boolean {
	return slots >= thresholds.minimumSlots && postings >= slots * thresholds.frequentShare;
}

/** The terms (ascending) whose base lists of `offsets` make them frequent in a base of `slots` slots under `thresholds`. */
export function frequentTermsOf(offsets: Int32Array, slots: number, thresholds: FileColumnThresholds): Int32Array<ArrayBuffer> {
	const terms: number[] = [];
	for (let term = 0; term + 1 < offsets.length; term++) if (isFrequent(offsets[term + 1] - offsets[term], slots, thresholds)) terms.push(term);
	return Int32Array.from(terms);
}

/** denseColumnsSteps's postings [from, to). */
function addToColumns(list: PostingRange, from: number, to: number, frequencies: Uint8Array, impacts: Int8Array, scale: number, lengths: Float32Array, boundAverage: number): void {
	const { slots } = list;
	for (let position = from; position < to; position++) {
		const slot = slots[position];
		const frequency = list.frequencies[position];
		frequencies[slot] = frequency;
		// At least 1 (a posting's bound is never zero); at most IMPACT_STEPS, for a saturation a rounding step
		// above the bound stored as float32 (the ranking widens every bound by a margin).
		const impact = Math.ceil(saturation(frequency, lengths[slot], boundAverage) * scale);
		impacts[slot] = impact > IMPACT_STEPS ? IMPACT_STEPS : impact < 1 ? 1 : impact;
	}
}

/** A term's postings added since the last compaction (slots ascending), with their largest saturation as the base keeps per term. */
class TailPostings {
	slots = new Int32Array(8);
	frequencies = new Uint8Array(8);
	length = 0;
	largestBound = 0;

	push(slot: number, frequency: number, bound: number): void {
		if (this.length === this.slots.length) {
			this.slots = grown(this.slots, 2 * this.length);
			this.frequencies = grown(this.frequencies, 2 * this.length);
		}
		this.slots[this.length] = slot;
		this.frequencies[this.length++] = frequency;
		if (bound > this.largestBound) this.largestBound = bound;
	}

	get byteLength(): number {
		return this.slots.byteLength + this.frequencies.byteLength;
	}
}

const NO_POSTINGS: PostingRange = { slots: new Int32Array(0), frequencies: new Uint8Array(0), start: 0, end: 0 };

/**
 * When a ranking holds frequent words' postings as columns (impact-top-k.ts). `mode`: "auto" picks
 * per query (SourceLexicon.rankedWithColumns), "never" and "always" are for comparing the two.
 */
export interface ColumnRankingOptions {
	/** Lexicons of fewer slots rank with lists only: a column costs a pass over every slot. */
	minimumSlots: number;
	/** A word is frequent when its base list holds at least this share of the slots. */
	frequentShare: number;
	/** The columns a lexicon keeps (two bytes a slot each), the least recently used leaving first. */
	budgetBytes: number;
	mode: "auto" | "never" | "always";
}

export const DEFAULT_COLUMN_RANKING: ColumnRankingOptions = { minimumSlots: 262_144, frequentShare: 1 / 8, budgetBytes: 128 * 2 ** 20, mode: "auto" };

/**
 * The longest a search's lexical ranking holds the API's event loop at a time (rankInSlices): a
 * frequent-word query with query expansion over a million chunks ranks for 5-20 ms (more on a slow
 * day), and another request arriving meanwhile waits for at most this, not for all of it. What a
 * pause lets in is served before the ranking goes on: at 1M with `/healthz` polled back to back,
 * 2 ms slices made searches 13% slower on average where 5 ms cost nothing measurable, both
 * halving `/healthz`'s worst answer (95 -> 34-54 ms).
 */
export const RANKING_SLICE_MS = 5;

/** Chunks a fold copies from its base per read of their pairs (a few megabytes of pairs). */
const COPY_BLOCK_SLOTS = 4096;

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
 * (term -> slots and frequencies) for slots added since. Both keep, per term, a bound on what
 * one posting can add to a score, so ranking may stop before reading every posting
 * (pruned-top-k.ts). Removed chunks become dead slots, skipped
 * by scoring and left out of the statistics at once. When the tail or the dead slots outgrow an
 * eighth of the index, everything is re-inverted from the chunk-major pairs (invertLexicon, a pure
 * function of typed arrays, so a large index re-inverts on an index-builder thread).
 *
 * Built on an index-builder thread (addRows page by page, then settle) and handed to the API's
 * thread whole (toTransfer / fromTransfer: typed arrays move, strings travel packed); changes
 * arrive the same way, as a lexicon of the changed documents' chunks (absorb).
 */
export class SourceLexicon implements CachedSource {
	readonly versions: DocumentVersions = new Map();
	/** Each document's slots: views of one array for a loaded lexicon (see fromTransfer), arrays for documents added since. */
	private readonly slotsOfDocument = new Map<string, number[] | Int32Array>();
	private readonly terms = new Map<string, number>();
	private termNames: string[] = [];
	private documentFrequency = new Int32Array(1024);
	/** Chunk ids, decoded only for hits; slot s's is chunkIds.at(idOfSlot.at(s)) (a compaction renumbers slots, not ids). */
	private chunkIds = new PackedStringTable();
	private idOfSlot = new SlotIds();
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
	private tail = new Map<number, TailPostings>();
	/** Per term, the largest saturation of its base postings (see saturation, at boundAverage). */
	private termBounds = new Float32Array(0);
	/** The average chunk length the bounds assume (BOUND_AVERAGE_SLACK above the average at the last compaction). */
	private boundAverage = 0;
	/** K1 * (1 - B + B * length / average length) per slot (NaN for a dead slot), recomputed after each change. */
	private lengthNorms = new Float32Array(1024);
	/**
	 * Per-query scratch, reused: rankings of one lexicon take turns (rankInSlices), so no two queries
	 * share it at once, and not allocating 100k-entry arrays per query keeps the garbage collector
	 * out of the tail latency.
	 */
	private scores = new Float32Array(1024);
	private touched = new Int32Array(1024);
	/** Per-query scratch of the pruned ranking (one window's partial scores), made by its first ranking. */
	private window: RankingWindow | null = null;
	/** Per-query scratch of the ranking with columns, made by its first such ranking. */
	private impactScratch: ImpactScratch | null = null;
	/** Frequent words' base lists as columns (term -> columns), least recently used first; made by rankings, dropped with the base. */
	private denseColumns = new Map<number, DenseColumns>();
	private denseColumnBytes = 0;
	/** The last columns to leave, for the next word's (denseColumnsSteps). */
	private spareColumns: DenseColumns | null = null;
	columnRanking: ColumnRankingOptions = { ...DEFAULT_COLUMN_RANKING };
	/** Rankings that used frequent words' columns (for tests and benchmarks: which way a query went). */
	rankingsWithColumns = 0;
	/** Frequent words' columns a ranking made from their postings, and those it read as the file's builder made them (for tests and benchmarks). */
	columnsMade = 0;
	columnsRead = 0;
	/** Opened in pieces: the terms whose base columns the file holds -> their place among the file's columns. */
	private fileColumns = new Map<number, number>();
	/**
	 * Opened in pieces (lexicon-pieces.ts): the base's postings and the pairs of its slots are in
	 * the file, read as a search needs them; `postings`, `frequencies` and `pairTerms` /
	 * `pairFrequencies` then hold only the pairs added since (pair p at p - pairBase). Null when
	 * everything is in memory (pairBase 0).
	 */
	private pieces: LexiconPieces | null = null;
	private pairBase = 0;

	/** Opened from a lexicon file (lexicon-files.ts), to be brought up to date by document versions. */
	restored = false;
	/** Chunks added or removed by absorb since this lexicon was built or opened (when a new file is due). */
	changedChunks = 0;
	/** Bumped when a newer generation of its file is adopted: changes read against the old one are not applied. */
	epoch = 0;
	/** Moves with every change a search could see (absorb, settle, adopt, completeCompaction): a ranking paused across one starts again. */
	private changes = 0;
	/** Rankings in slices take turns: they share its scratch and its file's read buffers. */
	private rankings = new SlicedTurns();

	static fromRows(rows: LexicalChunkRow[]): SourceLexicon {
		const lexicon = new SourceLexicon();
		lexicon.apply([], rows);
		return lexicon;
	}

	/** Chunks held (live). */
	get size(): number {
		return this.liveCount;
	}

	/** (term, chunk) pairs held, dead ones included: the work of a compaction. */
	get pairCount(): number {
		return this.pairStarts[this.slotCount];
	}

	/** Whether the base's postings and pairs are read from a lexicon file (opened in pieces). */
	get inPieces(): boolean {
		return this.pieces !== null;
	}

	/** True when the postings should be re-inverted: never inverted yet, the tail or the dead slots outgrew an eighth, or the term bounds no longer hold. */
	get compactionDue(): boolean {
		const threshold = Math.max(COMPACTION_MINIMUM, this.slotCount / 8);
		return this.baseSlots === 0 || this.slotCount - this.baseSlots > threshold || this.slotCount - this.liveCount > threshold || !this.boundsHold;
	}

	/** Live chunks' mean length (1 when empty): BM25's length normalisation is relative to it. */
	private get averageLength(): number {
		return this.liveCount > 0 ? this.totalLength / this.liveCount || 1 : 1;
	}

	/** Whether the term bounds are upper bounds at the current average length. */
	private get boundsHold(): boolean {
		return this.averageLength <= this.boundAverage;
	}

	/** Removes the chunks of `removedDocuments`, then adds `rows` (whose documents are recorded at their version). */
	apply(removedDocuments: string[], rows: LexicalChunkRow[]): void {
		for (const documentId of removedDocuments) this.removeDocument(documentId);
		this.addRows(rows);
		this.settle();
	}

	/**
	 * Sizes the arrays for `chunks` chunks in all, the pairs from the pairs per chunk added so far
	 * (plus a margin), so a build does not grow them by doubling: at a million chunks the pairs are
	 * about 1 GB, and a doubling held the old and the new arrays at once, then left up to half of
	 * the new one unused. Past the estimate they grow as before.
	 */
	reserveFor(chunks: number): void {
		if (this.slotCount === 0 || chunks <= this.slotCount) return;
		this.ensureSlotCapacity(chunks);
		const pairs = Math.ceil((this.pairCount / this.slotCount) * chunks * PAIR_RESERVE_MARGIN);
		if (pairs > this.pairTerms.length) this.growPairs(pairs);
	}

	/** Adds chunks without re-inverting: a build adds its rows page by page, then settles once. */
	addRows(rows: LexicalChunkRow[]): void {
		for (const row of rows) this.addChunk(row);
	}

	/** Re-inverts in place if due, and brings the length normalisation up to date. */
	settle(): void {
		this.changes++;
		if (this.compactionDue) this.useInverted(invertLexicon(this.pairs()));
		this.updateLengthNorms();
	}

	/**
	 * Removes the chunks of `removedDocuments`, then takes every chunk of `delta` (a lexicon built
	 * from the changed documents' rows) exactly as if its rows were added here: same slots, same
	 * statistics. The caller re-inverts when `compactionDue` (settle, or completeCompaction with
	 * invertLexicon's result from another thread).
	 */
	absorb(removedDocuments: string[], delta: SourceLexicon | null): void {
		this.changes++;
		const before = this.liveCount;
		for (const documentId of removedDocuments) this.removeDocument(documentId);
		this.changedChunks += before - this.liveCount + (delta?.liveCount ?? 0);
		if (delta) {
			if (delta.pieces) throw new Error("A delta lexicon is built in memory");
			// In the delta's term order, i.e. first appearance in its rows: as adding the rows would number them.
			const termOf = Int32Array.from(delta.termNames, (lexeme) => this.termFor(lexeme));
			const documentOf: string[] = new Array(delta.slotCount);
			for (const [documentId, slots] of delta.slotsOfDocument) for (const slot of slots) documentOf[slot] = documentId;
			for (let from = 0; from < delta.slotCount; from++) {
				if (delta.live[from] === 0) continue;
				const slot = this.beginChunk();
				for (let pair = delta.pairStarts[from]; pair < delta.pairStarts[from + 1]; pair++) this.addPair(slot, termOf[delta.pairTerms[pair]], delta.pairFrequencies[pair]);
				this.endChunk(slot, delta.chunkIdOf(from), documentOf[from], delta.versions.get(documentOf[from]) ?? "");
			}
		}
		this.updateLengthNorms();
	}

	/** The chunk-major pairs a compaction reads (views of this lexicon's arrays, not copies). */
	pairs(): LexiconPairs {
		if (this.pieces) throw new Error("A lexicon opened in pieces is re-inverted by a new generation of its file, not in memory");
		const pairCount = this.pairCount;
		return {
			slotCount: this.slotCount,
			termCount: this.termNames.length,
			live: this.live.subarray(0, this.slotCount),
			lengths: this.lengths.subarray(0, this.slotCount),
			pairStarts: this.pairStarts.subarray(0, this.slotCount + 1),
			pairTerms: this.pairTerms.subarray(0, pairCount),
			pairFrequencies: this.pairFrequencies.subarray(0, pairCount),
		};
	}

	/**
	 * Hands the pairs held in memory to `write` (slot order, continuing the previous call's) and
	 * lets them go: a build that keeps its pairs on disk (lexicon-build.ts) holds a page's at a time.
	 * For a build only (chunks added, none removed, never inverted).
	 */
	spillPairs(write: (terms: Int32Array, frequencies: Uint8Array) => void): void {
		if (this.baseSlots > 0 || this.pieces || this.liveCount !== this.slotCount) throw new Error("Only a build's pairs are spilled");
		const held = this.pairStarts[this.slotCount] - this.pairBase;
		write(this.pairTerms.subarray(0, held), this.pairFrequencies.subarray(0, held));
		this.pairBase += held;
	}

	/**
	 * For a build that folds `base` (a generation of the source's file, in pieces) into a new one:
	 * takes its vocabulary, numbered as there (new terms follow), then copies its chunks whose
	 * document `keep`s, in slot order, with their pairs, ids and versions; `copied` is called
	 * after each block of chunks (a spill may follow). What an in-memory fold holds once it has
	 * removed the other documents and been compacted.
	 */
	async copyChunksOf(base: SourceLexicon, keep: (documentId: string) => boolean, copied: () => void): Promise<void> {
		if (this.slotCount > 0 || this.termNames.length > 0) throw new Error("A fold's chunks are copied into an empty lexicon");
		for (const lexeme of base.termNames) this.termFor(lexeme);
		const documentOfSlot: string[] = new Array(base.slotCount);
		for (const [documentId, slots] of base.slotsOfDocument) for (const slot of slots) documentOfSlot[slot] = documentId;
		for (let from = 0; from < base.slotCount; from += COPY_BLOCK_SLOTS) {
			const to = Math.min(base.slotCount, from + COPY_BLOCK_SLOTS);
			// One read of the block's pairs (in pieces, from the file).
			const { terms, frequencies, start } = base.pairRange(base.pairStarts[from], base.pairStarts[to]);
			for (let slot = from; slot < to; slot++) {
				const documentId = documentOfSlot[slot];
				if (base.live[slot] === 0 || documentId === undefined || !keep(documentId)) continue;
				const target = this.beginChunk();
				for (let pair = base.pairStarts[slot]; pair < base.pairStarts[slot + 1]; pair++) this.addPair(target, terms[start + pair - base.pairStarts[from]], frequencies[start + pair - base.pairStarts[from]]);
				this.endChunk(target, base.chunkIdOf(slot), documentId, base.versions.get(documentId) ?? "");
			}
			copied();
			await new Promise((resolve) => setImmediate(resolve));
		}
	}

	/** Lets go of the file of a lexicon in pieces at once (a fold's base, which nothing else holds); it is unusable afterwards. */
	closeFile(): void {
		this.pieces?.close();
		this.pieces = null;
	}

	/** What inverting a spilled build reads (views): per term its chunks, per chunk its length and where its pairs start. */
	spilledShape(): { termCount: number; slotCount: number; documentFrequency: Int32Array; lengths: Float32Array; pairStarts: Int32Array } {
		return {
			termCount: this.termNames.length,
			slotCount: this.slotCount,
			documentFrequency: this.documentFrequency.subarray(0, this.termNames.length),
			lengths: this.lengths.subarray(0, this.slotCount),
			pairStarts: this.pairStarts.subarray(0, this.slotCount + 1),
		};
	}

	/**
	 * Ends a spilled build with its inversion's per-term offsets and bounds: every chunk in the base,
	 * as `compact` leaves a build (the same arrays and numbers, so toTransfer gives what the file of
	 * an in-memory build holds), except the pairs and postings, which the file's builder writes.
	 */
	completeSpilledBuild(offsets: Int32Array<ArrayBuffer>, termBounds: Float32Array<ArrayBuffer>, boundAverage: number): void {
		const next = this.slotCount;
		this.pairStarts = this.pairStarts.subarray(0, next + 1);
		this.lengths = this.lengths.subarray(0, next);
		this.live = new Uint8Array(Math.max(1, next)).fill(1);
		this.lengthNorms = new Float32Array(Math.max(1, next));
		this.offsets = offsets;
		this.termBounds = termBounds;
		this.boundAverage = boundAverage;
		this.baseSlots = next;
		this.updateLengthNorms();
	}

	/** Re-inverts now, due or not: afterwards every live chunk is in the base, with no tail and no dead slot (what a file holds). */
	compact(): void {
		this.useInverted(invertLexicon(this.pairs()));
		this.updateLengthNorms();
	}

	/**
	 * Takes `newer`'s content (a newer generation of this source's lexicon file, opened in pieces)
	 * in place of its own: searches holding this lexicon rank with it from then on. The generation
	 * holds its fold's snapshot, so the caller marks the source stale and the next search catches up
	 * by document versions.
	 */
	adopt(newer: SourceLexicon): void {
		const { rankings, columnRanking } = this;
		const epoch = this.epoch + 1;
		const changes = this.changes + 1;
		Object.assign(this, newer);
		this.epoch = epoch;
		this.changes = changes;
		this.rankings = rankings;
		this.columnRanking = columnRanking;
		this.changedChunks = 0;
		this.restored = false;
	}

	/** Takes the result of invertLexicon over `pairs()` (nothing changed since) and updates the length normalisation. */
	completeCompaction(inverted: InvertedLexicon): void {
		this.changes++;
		this.useInverted(inverted);
		this.updateLengthNorms();
	}

	/**
	 * Chunks ranked by BM25 for weighted query terms, best first; ties by slot. Exactly
	 * rankExhaustive's result, without scoring every posting (pruned-top-k.ts).
	 */
	rank(queryTerms: Map<string, number>, limit: number): LexicalHit[] {
		return runToEnd(this.rankSteps(queryTerms, limit));
	}

	/**
	 * Runs a ranking of this lexicon (rankSteps, rankExhaustiveSteps, or rankLexicallySteps's two
	 * passes) on the event loop in slices of at most `sliceMs`, so a search of frequent words over a
	 * million chunks (tens of milliseconds of ranking) holds no other request, health check or
	 * tenant for longer than a slice. Rankings of one lexicon take turns; one that a change (a
	 * refresh absorbing documents, a fold adopted) catches paused starts again on the new state.
	 */
	rankInSlices<T>(ranking: () => Steps<T>, sliceMs = RANKING_SLICE_MS): Promise<T> {
		return this.rankings.run(ranking, { sliceMs, version: () => this.changes });
	}

	/** rank, pausing between windows of slots (see rankInSlices). */
	*rankSteps(queryTerms: Map<string, number>, limit: number): Steps<LexicalHit[]> {
		return yield* this.hitsSteps(yield* this.rankedSlotsSteps(queryTerms, limit));
	}

	/** rankSteps' chunks as slots, without their ids: what a first pass gives feedback from (their terms, read by slot). */
	*rankedSlotsSteps(queryTerms: Map<string, number>, limit: number): Steps<ScoredSlots> {
		if (!this.boundsHold) return yield* this.rankedExhaustiveSlotsSteps(queryTerms, limit);
		const weighted = this.weightedTerms(queryTerms);
		const ranges = weighted.map(({ term }) => (term + 1 < this.offsets.length ? { start: this.offsets[term], end: this.offsets[term + 1] } : { start: 0, end: 0 }));
		const frequent = ranges.map(({ start, end }) => isFrequent(end - start, this.slotCount, this.columnRanking));
		if (this.rankedWithColumns(weighted, ranges, frequent)) {
			const ranked = yield* this.rankWithColumnsSteps(weighted, ranges, frequent, limit);
			return ranked ?? (yield* this.rankedExhaustiveSlotsSteps(queryTerms, limit));
		}
		const base = yield* this.baseListsSteps(ranges);
		if (!base) return yield* this.rankedExhaustiveSlotsSteps(queryTerms, limit);
		const lists: PostingList[] = [];
		// One object shape for every list (the ranking's code stays monomorphic).
		const list = (slots: Int32Array, frequencies: Uint8Array, start: number, end: number, weight: number, largestBound: number): PostingList => ({ slots, frequencies, start, end, weight, largestBound });
		weighted.forEach(({ term, weight }, index) => {
			const { slots, frequencies, start, end } = base[index];
			if (end > start) lists.push(list(slots, frequencies, start, end, weight, this.termBounds[term]));
			const recent = this.tail.get(term);
			if (recent) lists.push(list(recent.slots, recent.frequencies, 0, recent.length, weight, recent.largestBound));
		});
		return yield* prunedTopKSteps(lists, { lengthNorms: this.lengthNorms, slotCount: this.slotCount, window: (this.window ??= rankingWindow()) }, limit);
	}

	/**
	 * The base's lists of `ranges`: views of the index's arrays, or, in pieces, read from the file
	 * together (a ranking moves through all of them at once); null when they are too long to read at once.
	 */
	private *baseListsSteps(ranges: { start: number; end: number }[]): Steps<PostingRange[] | null> {
		if (this.pieces) return yield* this.pieces.postingListsSteps(ranges);
		return ranges.map(({ start, end }) => ({ slots: this.postings, frequencies: this.frequencies, start, end }));
	}

	/** A ranking's slots and scores as hits, their chunk ids read together (in pieces: from the file, off the event loop in slices). */
	private *hitsSteps({ slots, scores }: ScoredSlots): Steps<LexicalHit[]> {
		const chunkIds = yield* this.chunkIds.atSteps(slots.map((slot) => this.idOfSlot.at(slot)));
		return slots.map((slot, index) => ({ chunkId: chunkIds[index], slot, score: scores[index] }));
	}

	/**
	 * Whether a query is ranked with its frequent words' columns (impact-top-k.ts) rather than by
	 * MaxScore over its lists: when it has a frequent word, unless its other lists are long (their
	 * postings are added one by one either way, and MaxScore may leave some unread) or its columns
	 * do not fit in the budget together. Over the 1,200
	 * rankings of bench:knowledge-lexical's three query classes at a million chunks (first and
	 * expanded passes), columns whenever a frequent word is in the query took 20% less time in all
	 * than MaxScore, half at the 99th percentile, and within 8% of picking the faster way for each
	 * ranking afterwards; no rule on the words' bounds tried came closer (docs/knowledge.md). A
	 * word's columns are made at its first such ranking: making them costs about what MaxScore's
	 * ranking of its list does once, so waiting for a word's third ranking (as before) paid for two
	 * slow rankings to save a making; through the API at 1M, 1,200 searches after a restart, the
	 * p99 was 10-20% lower making them at once (three runs each, alternating), the mean 1-3% higher.
	 */
	private rankedWithColumns(weighted: { term: number }[], ranges: { start: number; end: number }[], frequent: boolean[]): boolean {
		const { mode } = this.columnRanking;
		if (mode === "never" || !frequent.includes(true)) return false;
		if (mode === "always") return true;
		// A query whose columns cannot all be kept would make them again at every ranking.
		if (frequent.filter(Boolean).length * 2 * this.baseSlots > this.columnRanking.budgetBytes) return false;
		let otherPostings = 0;
		weighted.forEach(({ term }, index) => {
			if (!frequent[index]) otherPostings += ranges[index].end - ranges[index].start;
			otherPostings += this.tail.get(term)?.length ?? 0;
		});
		return otherPostings <= this.slotCount / 4;
	}

	/**
	 * rankSteps with the frequent words' base lists as columns, made from their postings the first
	 * time (and kept, up to the budget); null when the query's lists are too long to read at once
	 * (the caller ranks exhaustively).
	 */
	private *rankWithColumnsSteps(weighted: { term: number; weight: number }[], ranges: { start: number; end: number }[], frequent: boolean[], limit: number): Steps<ScoredSlots | null> {
		const held = weighted.map(({ term }, index) => (frequent[index] ? this.heldColumns(term) : null));
		const inFile = weighted.map(({ term }, index) => (frequent[index] && !held[index] ? (this.fileColumns.get(term) ?? -1) : -1));
		// Read: the lists of postings, and the frequent lists whose columns are neither held nor in the file (to make them).
		const reading = ranges.map((range, index) => (held[index] || inFile[index] >= 0 ? { start: 0, end: 0 } : range));
		const base = yield* this.baseListsSteps(reading);
		if (!base) return null;
		const lists: ImpactList[] = [];
		for (let index = 0; index < weighted.length; index++) {
			const { term, weight } = weighted[index];
			const largestBound = this.termBounds[term];
			const { slots, frequencies, start, end } = base[index];
			if (frequent[index]) {
				let columns = held[index];
				if (!columns) {
					const { lengths, boundAverage } = this;
					// Not the columns of a word of this very query (possible only past the budget, with mode "always").
					const spare = this.spareColumns && !held.includes(this.spareColumns) && !lists.some((list) => list.dense === this.spareColumns) ? this.spareColumns : null;
					if (spare) this.spareColumns = null;
					if (this.pieces && inFile[index] >= 0) {
						const into = spare && spare.frequencies.length === this.baseSlots ? spare : { frequencies: new Uint8Array(this.baseSlots), impacts: new Int8Array(this.baseSlots) };
						columns = yield* this.pieces.columnsSteps(inFile[index], into);
						this.columnsRead++;
					} else {
						columns = yield* denseColumnsSteps(base[index], this.baseSlots, largestBound, lengths, boundAverage, spare);
						this.columnsMade++;
					}
					this.holdColumns(term, columns);
				}
				lists.push({ slots, frequencies, start: 0, end: 0, weight, largestBound, dense: columns });
			} else if (end > start) lists.push({ slots, frequencies, start, end, weight, largestBound, dense: null });
			const recent = this.tail.get(term);
			if (recent) lists.push({ slots: recent.slots, frequencies: recent.frequencies, start: 0, end: recent.length, weight, largestBound: recent.largestBound, dense: null });
		}
		this.rankingsWithColumns++;
		return yield* impactTopKSteps(lists, { lengthNorms: this.lengthNorms, slotCount: this.slotCount, scratch: (this.impactScratch ??= impactScratch()) }, limit);
	}

	/** A word's base columns if held (for tests: those read from a file against those made); its place in the order of use is left as it is. */
	heldColumnsOf(word: string): DenseColumns | null {
		const term = this.terms.get(word);
		return term === undefined ? null : (this.denseColumns.get(term) ?? null);
	}

	/** A frequent word's columns if held (it becomes the most recently used). */
	private heldColumns(term: number): DenseColumns | null {
		const columns = this.denseColumns.get(term);
		if (!columns) return null;
		this.denseColumns.delete(term);
		this.denseColumns.set(term, columns);
		return columns;
	}

	/** Keeps a frequent word's columns; the least recently used others leave past the budget. */
	private holdColumns(term: number, columns: DenseColumns): void {
		this.denseColumns.set(term, columns);
		this.denseColumnBytes += columns.frequencies.byteLength + columns.impacts.byteLength;
		for (const [other, held] of this.denseColumns) {
			if (this.denseColumnBytes <= this.columnRanking.budgetBytes || other === term) break;
			this.denseColumns.delete(other);
			this.denseColumnBytes -= held.frequencies.byteLength + held.impacts.byteLength;
			this.spareColumns = held;
		}
	}

	/** rank's result by scoring every posting of every query term: the reference the pruned ranking is tested and measured against. */
	rankExhaustive(queryTerms: Map<string, number>, limit: number): LexicalHit[] {
		return runToEnd(this.rankExhaustiveSteps(queryTerms, limit));
	}

	/** rankExhaustive, pausing after each term's postings (see rankInSlices). */
	*rankExhaustiveSteps(queryTerms: Map<string, number>, limit: number): Steps<LexicalHit[]> {
		return yield* this.hitsSteps(yield* this.rankedExhaustiveSlotsSteps(queryTerms, limit));
	}

	/** rankExhaustiveSteps' chunks as slots, without their ids (see rankedSlotsSteps). */
	*rankedExhaustiveSlotsSteps(queryTerms: Map<string, number>, limit: number): Steps<ScoredSlots> {
		if (this.scores.length < this.slotCount) {
			this.scores = new Float32Array(this.live.length);
			this.touched = new Int32Array(this.live.length);
		}
		const { scores, touched, offsets } = this;
		let touchedCount = 0;
		// The scratch is all zero between queries, also after one given up while paused (its `finally`).
		try {
			for (const { term, weight } of this.weightedTerms(queryTerms)) {
				touchedCount = this.addScores(term + 1 < offsets.length ? yield* this.basePostingsSteps(term) : NO_POSTINGS, weight, scores, touched, touchedCount);
				const recent = this.tail.get(term);
				if (recent) touchedCount = this.addScores({ slots: recent.slots, frequencies: recent.frequencies, start: 0, end: recent.length }, weight, scores, touched, touchedCount);
				yield;
			}
			// Partial selection: keep the best `limit` in a small sorted array instead of sorting every hit.
			const best: number[] = [];
			const before = (slot: number, other: number) => scores[slot] > scores[other] || (scores[slot] === scores[other] && slot < other);
			for (let index = 0; index < touchedCount && limit > 0; index++) {
				const slot = touched[index];
				if (best.length >= limit && !before(slot, best[best.length - 1])) continue;
				let position = best.length;
				while (position > 0 && before(slot, best[position - 1])) position--;
				best.splice(position, 0, slot);
				if (best.length > limit) best.pop();
			}
			return { slots: best, scores: best.map((slot) => scores[slot]) };
		} finally {
			for (let index = 0; index < touchedCount; index++) scores[touched[index]] = 0;
		}
	}

	/** Adds a list's postings of live slots to the exhaustive ranking's scratch, recording slots scored for the first time; returns the count recorded. */
	private addScores(list: PostingRange, weight: number, scores: Float32Array, touched: Int32Array, touchedCount: number): number {
		const { live, lengthNorms } = this;
		const { slots, frequencies, start, end } = list;
		let count = touchedCount;
		for (let position = start; position < end; position++) {
			const slot = slots[position];
			if (live[slot] === 0) continue;
			const frequency = frequencies[position];
			if (scores[slot] === 0) touched[count++] = slot;
			scores[slot] += (weight * frequency) / (frequency + lengthNorms[slot]);
		}
		return count;
	}

	/**
	 * The query's terms held here (live), with their BM25 weights, in the order both rankings add
	 * them: the most weight per posting first (weight / document frequency: rare and heavily
	 * weighted terms), ties by lexeme. Pruning (pruned-top-k.ts) draws chunks from the first lists
	 * and looks the last ones up only for chunks that could still enter the top k (a suffix of lists
	 * whose bounds add up to less than the k-th score), so the lists left mostly unread should be
	 * those with the most postings for their bound: the long lists of frequent words. Ordered by
	 * weight alone, an expanded query put its forty light feedback terms (a few thousand postings
	 * in all, by the expansion's budget) last, and they used up the threshold a frequent original
	 * word (hundreds of thousands at a million chunks, a bound as light as theirs) could have
	 * taken; ordered by weight per posting, the frequent word is last (16% less ranking time over
	 * the 1M bench queries, docs/knowledge.md). Both rankings share it, so their float32 sums are the
	 * same. The order depends only on what the lexicon holds (document frequencies, live chunks),
	 * not on how its postings are laid out: ordered by their bounds, which a compaction recomputes
	 * and a lexicon in pieces keeps per part, two lexicons of the same chunks (an instance that
	 * re-inverted, one that opened the file) added the same terms in another order and gave scores
	 * one float32 step apart.
	 */
	private weightedTerms(queryTerms: Map<string, number>): { term: number; weight: number }[] {
		const weighted: { term: number; weight: number; lexeme: string; weightPerPosting: number }[] = [];
		for (const [lexeme, queryWeight] of queryTerms) {
			const term = this.terms.get(lexeme);
			if (term === undefined || this.documentFrequency[term] === 0 || queryWeight <= 0) continue;
			const weight = this.termWeight(term, queryWeight);
			weighted.push({ term, weight, lexeme, weightPerPosting: weight / this.documentFrequency[term] });
		}
		return weighted.sort((left, right) => right.weightPerPosting - left.weightPerPosting || (left.lexeme < right.lexeme ? -1 : left.lexeme > right.lexeme ? 1 : 0));
	}

	/** A term's BM25 weight: query weight x IDF x (k1 + 1); Lucene's non-negative IDF (a term in every chunk still counts a little, never negatively). */
	private termWeight(term: number, queryWeight: number): number {
		const documentFrequency = this.documentFrequency[term];
		return queryWeight * Math.log(1 + (this.liveCount - documentFrequency + 0.5) / (documentFrequency + 0.5)) * (K1 + 1);
	}

	chunkIdOf(slot: number): string {
		return this.chunkIds.at(this.idOfSlot.at(slot));
	}

	/** A chunk's lexemes with their (field-weighted) counts. */
	termsOf(slot: number): [string, number][] {
		const { terms, counts } = this.termNumbersOf(slot);
		return Array.from(terms, (term, index): [string, number] => [this.termNames[term], counts[index]]);
	}

	/**
	 * `count` queries of two or three of this lexicon's own lexemes, each in between a thousandth and
	 * half of its chunks (lists of one to hundreds of windows: every path of the pruned ranking),
	 * spread over its vocabulary; the same for the same lexicon. For warming search's code
	 * (search/search-warm-up.ts).
	 */
	sampleQueries(count: number): Map<string, number>[] {
		const eligible: number[] = [];
		for (let term = 0; term < this.termNames.length; term++) {
			const frequency = this.documentFrequency[term];
			if (frequency * 1000 >= this.liveCount && frequency * 2 <= this.liveCount) eligible.push(term);
		}
		if (eligible.length === 0) return [];
		const queries: Map<string, number>[] = [];
		const stride = Math.max(1, Math.floor(eligible.length / (3 * count)));
		let next = 0;
		for (let index = 0; index < count; index++) {
			const query = new Map<string, number>();
			for (let word = 0; word < 2 + (index % 2); word++) {
				query.set(this.termNames[eligible[next % eligible.length]], 1);
				next += stride;
			}
			queries.push(query);
		}
		return queries;
	}

	/** A chunk's term numbers (as numberTerms numbers them) with their (field-weighted) counts beside them: termsOf without a string per term. */
	termNumbersOf(slot: number): { terms: Int32Array; counts: Uint8Array } {
		const { terms, frequencies, start, end } = this.pairsOf(slot);
		// Copies: a lexicon in pieces reads them into scratch that its next read reuses.
		return { terms: terms.slice(start, end), counts: frequencies.slice(start, end) };
	}

	/** termNumbersOf for several chunks, those whose pairs are in the file read together (off the event loop in slices). */
	*termNumbersOfSteps(slots: readonly number[]): Steps<{ terms: Int32Array; counts: Uint8Array }[]> {
		const held = slots.map((slot) => (this.pairStarts[slot] >= this.pairBase ? this.termNumbersOf(slot) : null));
		const inFile = slots.filter((_, at) => !held[at]);
		if (inFile.length === 0) return held as { terms: Int32Array; counts: Uint8Array }[];
		if (!this.pieces) throw new Error("A lexicon's pairs are missing");
		const read = yield* this.pieces.pairRangesSteps(inFile.map((slot) => ({ start: this.pairStarts[slot], end: this.pairStarts[slot + 1] })));
		let next = 0;
		return held.map((numbers) => numbers ?? { terms: read[next].terms, counts: read[next++].frequencies });
	}

	/**
	 * A query's lexemes as term numbers (one the lexicon lacks gets a negative number of its own),
	 * with the way back and their document frequencies: RM3 over a chunk's terms (termNumbersOf)
	 * hashes numbers, not lexemes.
	 */
	numberTerms(queryTerms: Map<string, number>): { query: Map<number, number>; lexemeOf: (term: number) => string; documentFrequencyOf: (term: number) => number } {
		const unknown: string[] = [];
		const query = new Map<number, number>();
		for (const [lexeme, weight] of queryTerms) query.set(this.terms.get(lexeme) ?? -unknown.push(lexeme), weight);
		const { termNames, documentFrequency } = this;
		return {
			query,
			lexemeOf: (term) => (term >= 0 ? termNames[term] : unknown[-term - 1]),
			documentFrequencyOf: (term) => (term >= 0 ? documentFrequency[term] : 0),
		};
	}

	/** The base's postings of a term: views of the index's arrays, or read from the file into scratch (valid until the next read). */
	private *basePostingsSteps(term: number): Steps<PostingRange> {
		const start = this.offsets[term];
		const end = this.offsets[term + 1];
		return this.pieces ? yield* this.pieces.postingsSteps(start, end) : { slots: this.postings, frequencies: this.frequencies, start, end };
	}

	/** A slot's pairs: in memory, or (a base slot of a lexicon in pieces) read from the file into scratch (valid until the next call). */
	private pairsOf(slot: number): PairRange {
		return this.pairRange(this.pairStarts[slot], this.pairStarts[slot + 1]);
	}

	/** Pairs [start, end) of consecutive slots, all in memory or all in the file (the base's). */
	private pairRange(start: number, end: number): PairRange {
		if (start >= this.pairBase) return { terms: this.pairTerms, frequencies: this.pairFrequencies, start: start - this.pairBase, end: end - this.pairBase };
		if (!this.pieces || end > this.pairBase) throw new Error("A lexicon's pairs are missing");
		return this.pieces.pairs(start, end);
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

	/** The typed arrays the index is made of (not the per-query scratch): what is counted and what moves between threads. */
	private indexArrays() {
		return [
			this.documentFrequency,
			this.live,
			this.lengths,
			this.pairStarts,
			this.pairTerms,
			this.pairFrequencies,
			this.offsets,
			this.postings,
			this.frequencies,
			this.termBounds,
			this.lengthNorms,
		];
	}

	/** Approximate bytes held (typed arrays, chunk ids, vocabulary, tail); for the benchmark and operators. */
	memoryBytes(): number {
		// Slots' document lists: 4 bytes a slot (views of one array after a load).
		let bytes = this.chunkIds.byteLength + this.idOfSlot.byteLength + 4 * this.slotCount + (this.pieces?.scratchBytes ?? 0) + this.denseColumnBytes;
		for (const term of this.termNames) bytes += 16 + term.length + 24;
		for (const recent of this.tail.values()) bytes += 64 + recent.byteLength;
		const arrays = [...this.indexArrays(), this.scores, this.touched];
		return arrays.reduce((sum, array) => sum + array.byteLength, bytes);
	}

	/**
	 * The lexicon as it moves between threads: its typed arrays (listed in `buffers`, to be
	 * transferred rather than copied; this lexicon is unusable afterwards) and its strings packed.
	 * Only a built lexicon moves: one whose additions all went to the base (no tail).
	 */
	toTransfer(): { transfer: LexiconTransfer; buffers: ArrayBuffer[] } {
		if (this.pieces) throw new Error("A lexicon opened in pieces does not move between threads (its file does)");
		if (this.tail.size > 0) throw new Error("A lexicon with a tail of postings does not move between threads");
		const documentIds = [...this.slotsOfDocument.keys()];
		const documentOfSlot = new Int32Array(this.slotCount).fill(-1);
		documentIds.forEach((documentId, index) => {
			for (const slot of this.slotsOfDocument.get(documentId) ?? []) documentOfSlot[slot] = index;
		});
		const chunkIds = packStrings(Array.from({ length: this.slotCount }, (_, slot) => this.chunkIdOf(slot)));
		const transfer: LexiconTransfer = {
			chunkIds,
			chunkIdStarts: stringStarts(chunkIds),
			termNames: packStrings(this.termNames),
			documentIds: packStrings(documentIds),
			documentVersions: packStrings(documentIds.map((documentId) => this.versions.get(documentId) ?? "")),
			documentOfSlot,
			documentFrequency: this.documentFrequency,
			live: this.live,
			lengths: this.lengths,
			pairStarts: this.pairStarts,
			pairTerms: this.pairTerms,
			pairFrequencies: this.pairFrequencies,
			offsets: this.offsets,
			postings: this.postings,
			frequencies: this.frequencies,
			termBounds: this.termBounds,
			boundAverage: this.boundAverage,
			lengthNorms: this.lengthNorms,
			slotCount: this.slotCount,
			liveCount: this.liveCount,
			totalLength: this.totalLength,
			baseSlots: this.baseSlots,
			// Written by a lexicon file's builder only (lexicon-build.ts).
			columnTerms: new Int32Array(0),
			columns: new Uint8Array(0),
		};
		const packed = [transfer.chunkIds, transfer.termNames, transfer.documentIds, transfer.documentVersions].map((strings) => strings.bytes);
		return { transfer, buffers: buffersOf(...packed, transfer.chunkIdStarts, documentOfSlot, ...this.indexArrays()) };
	}

	/**
	 * A lexicon from toTransfer's output. Typed arrays and the packed chunk ids are adopted as they
	 * are; the vocabulary's lookup map and the per-document slot lists are rebuilt in slices that
	 * yield to the event loop.
	 */
	static async fromTransfer(transfer: LexiconTransfer, descriptors?: FinalizationRegistry<number>): Promise<SourceLexicon> {
		const lexicon = new SourceLexicon();
		// In pieces, the chunk ids' bytes stay in the file (their bounds are here, 4 bytes a chunk): a ranking's hits are read together.
		const pieces = transfer.pieces ? new LexiconPieces(transfer.pieces, descriptors) : null;
		lexicon.chunkIds = new PackedStringTable(transfer.chunkIds, transfer.chunkIdStarts, pieces ? (ranges) => pieces.chunkIdsSteps(ranges) : undefined);
		const termNames = unpackStrings(transfer.termNames);
		lexicon.termNames = termNames;
		await inSlices(termNames.length, (term) => lexicon.terms.set(termNames[term], term));
		const documentIds = unpackStrings(transfer.documentIds);
		const documentVersions = unpackStrings(transfer.documentVersions);
		await inSlices(documentIds.length, (index) => lexicon.versions.set(documentIds[index], documentVersions[index]));
		// Each document's slots as a view of one typed array.
		for (const [documentId, slots] of await groupedByCounting(transfer.slotCount, transfer.documentOfSlot, documentIds)) lexicon.slotsOfDocument.set(documentId, slots);
		lexicon.documentFrequency = transfer.documentFrequency;
		lexicon.live = transfer.live;
		lexicon.lengths = transfer.lengths;
		lexicon.pairStarts = transfer.pairStarts;
		if (pieces) {
			lexicon.pieces = pieces;
			lexicon.pairBase = transfer.pairStarts[transfer.slotCount];
			lexicon.pairTerms = new Int32Array(1024);
			lexicon.pairFrequencies = new Uint8Array(1024);
		} else {
			lexicon.pairTerms = transfer.pairTerms;
			lexicon.pairFrequencies = transfer.pairFrequencies;
		}
		lexicon.offsets = transfer.offsets;
		lexicon.postings = transfer.postings;
		lexicon.frequencies = transfer.frequencies;
		lexicon.termBounds = transfer.termBounds;
		lexicon.boundAverage = transfer.boundAverage;
		lexicon.lengthNorms = transfer.lengthNorms;
		lexicon.slotCount = transfer.slotCount;
		lexicon.liveCount = transfer.liveCount;
		lexicon.totalLength = transfer.totalLength;
		lexicon.baseSlots = transfer.baseSlots;
		if (pieces) transfer.columnTerms.forEach((term, index) => lexicon.fileColumns.set(term, index));
		// The exhaustive ranking's scratch, allocated when first needed (a pruned ranking never does).
		lexicon.scores = new Float32Array(0);
		lexicon.touched = new Int32Array(0);
		return lexicon;
	}

	private removeDocument(documentId: string): void {
		for (const slot of this.slotsOfDocument.get(documentId) ?? []) {
			if (this.live[slot] === 0) continue;
			this.live[slot] = 0;
			this.liveCount--;
			this.totalLength -= this.lengths[slot];
			const { terms, start, end } = this.pairsOf(slot);
			for (let pair = start; pair < end; pair++) this.documentFrequency[terms[pair]]--;
		}
		this.slotsOfDocument.delete(documentId);
		this.versions.delete(documentId);
	}

	private addChunk(row: LexicalChunkRow): void {
		const slot = this.beginChunk();
		// tsvector keeps at most 256 positions per lexeme; one byte holds any count that matters to BM25.
		const add = (lexeme: string, count: number) => this.addPair(slot, this.termFor(lexeme), Math.min(255, count));
		if (row.heading_lexemes) {
			// A lexeme may be in both fields: one pair with the weighted sum.
			const counts = new Map<string, number>();
			parseTsvector(row.lexemes ?? "", (lexeme, frequency) => counts.set(lexeme, frequency));
			parseTsvector(row.heading_lexemes, (lexeme, frequency) => counts.set(lexeme, (counts.get(lexeme) ?? 0) + HEADING_WEIGHT * frequency));
			for (const [lexeme, count] of counts) add(lexeme, count);
		} else {
			// Lexemes of one tsvector are distinct: straight into pairs, no per-chunk map.
			parseTsvector(row.lexemes ?? "", add);
		}
		this.endChunk(slot, row.id, row.document_id, row.version);
	}

	private termFor(lexeme: string): number {
		let term = this.terms.get(lexeme);
		if (term === undefined) {
			term = this.termNames.length;
			this.terms.set(lexeme, term);
			this.termNames.push(lexeme);
			if (term >= this.documentFrequency.length) this.documentFrequency = grown(this.documentFrequency, 2 * this.documentFrequency.length);
		}
		return term;
	}

	/** A new slot whose pairs follow (addPair), then endChunk; its pair range grows as pairs are added. */
	private beginChunk(): number {
		const slot = this.slotCount++;
		this.ensureSlotCapacity(this.slotCount);
		this.pairStarts[slot + 1] = this.pairStarts[slot];
		this.lengths[slot] = 0;
		return slot;
	}

	private addPair(slot: number, term: number, frequency: number): void {
		const pair = this.pairStarts[slot + 1];
		const index = pair - this.pairBase;
		if (index === this.pairTerms.length) this.ensurePairCapacity(index + 1);
		this.pairTerms[index] = term;
		this.pairFrequencies[index] = frequency;
		this.pairStarts[slot + 1] = pair + 1;
		this.lengths[slot] += frequency;
		this.documentFrequency[term]++;
	}

	private endChunk(slot: number, chunkId: string, documentId: string, version: string): void {
		this.idOfSlot.set(slot, this.chunkIds.add(chunkId));
		this.live[slot] = 1;
		this.liveCount++;
		this.totalLength += this.lengths[slot];
		// Before the first compaction (a build) everything goes to the base at once; after, to the tail, bounded once the chunk's length is known.
		if (this.baseSlots > 0 && slot >= this.baseSlots) {
			for (let pair = this.pairStarts[slot] - this.pairBase; pair < this.pairStarts[slot + 1] - this.pairBase; pair++) {
				const term = this.pairTerms[pair];
				const frequency = this.pairFrequencies[pair];
				let recent = this.tail.get(term);
				if (!recent) this.tail.set(term, (recent = new TailPostings()));
				recent.push(slot, frequency, saturation(frequency, this.lengths[slot], this.boundAverage));
			}
		}
		const slots = this.slotsOfDocument.get(documentId);
		if (Array.isArray(slots)) slots.push(slot);
		else this.slotsOfDocument.set(documentId, slots ? [...slots, slot] : [slot]);
		this.versions.set(documentId, version);
	}

	/** Adopts a compaction of this lexicon's pairs: dead slots dropped, every live one in the base, the tail empty. */
	private useInverted(inverted: InvertedLexicon): void {
		const { renumbered } = inverted;
		const next = inverted.slotCount;
		// Slot-indexed arrays share one capacity (pairStarts one more), which ensureSlotCapacity relies on.
		const idOfSlot = new Int32Array(Math.max(1, next));
		for (let slot = 0; slot < this.slotCount; slot++) if (renumbered[slot] >= 0) idOfSlot[renumbered[slot]] = this.idOfSlot.at(slot);
		for (const [documentId, slots] of this.slotsOfDocument) this.slotsOfDocument.set(documentId, Int32Array.from(slots, (slot) => renumbered[slot]));
		this.pairStarts = inverted.pairStarts;
		this.pairTerms = inverted.pairTerms;
		this.pairFrequencies = inverted.pairFrequencies;
		this.idOfSlot = SlotIds.of(idOfSlot);
		this.lengths = inverted.lengths;
		this.offsets = inverted.offsets;
		this.postings = inverted.postings;
		this.frequencies = inverted.frequencies;
		this.termBounds = inverted.termBounds;
		this.boundAverage = inverted.boundAverage;
		this.slotCount = next;
		this.baseSlots = next;
		this.tail = new Map();
		// Columns are of the base's postings and bounds: both are new.
		this.fileColumns = new Map();
		this.denseColumns = new Map();
		this.denseColumnBytes = 0;
		this.spareColumns = null;
		this.live = new Uint8Array(Math.max(1, next)).fill(1);
		this.lengthNorms = new Float32Array(Math.max(1, next));
		this.scores = new Float32Array(Math.max(1, next));
		this.touched = new Int32Array(Math.max(1, next));
	}

	/** A dead slot's norm is NaN: the pruned ranking tells it by its scores alone (RankingInput). */
	private updateLengthNorms(): void {
		const averageLength = this.averageLength;
		for (let slot = 0; slot < this.slotCount; slot++) this.lengthNorms[slot] = this.live[slot] === 0 ? Number.NaN : K1 * (1 - B + (B * this.lengths[slot]) / averageLength);
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

	/** Room for `pairs` pairs in memory (counted from pairBase). */
	private ensurePairCapacity(pairs: number): void {
		if (pairs <= this.pairTerms.length) return;
		this.growPairs(Math.max(pairs, this.pairTerms.length * 2));
	}

	private growPairs(capacity: number): void {
		this.pairTerms = grown(this.pairTerms, capacity);
		this.pairFrequencies = grown(this.pairFrequencies, capacity);
	}
}

/** A lexicon's chunk-major pairs and per-slot lengths: everything re-inverting reads. */
export interface LexiconPairs {
	slotCount: number;
	termCount: number;
	live: Uint8Array<ArrayBuffer>;
	lengths: Float32Array<ArrayBuffer>;
	pairStarts: Int32Array<ArrayBuffer>;
	pairTerms: Int32Array<ArrayBuffer>;
	pairFrequencies: Uint8Array<ArrayBuffer>;
}

/** Live slots renumbered densely (`renumbered[old]` = new slot or -1), their pairs, and the term-major postings. */
export interface InvertedLexicon {
	slotCount: number;
	renumbered: Int32Array<ArrayBuffer>;
	lengths: Float32Array<ArrayBuffer>;
	pairStarts: Int32Array<ArrayBuffer>;
	pairTerms: Int32Array<ArrayBuffer>;
	pairFrequencies: Uint8Array<ArrayBuffer>;
	offsets: Int32Array<ArrayBuffer>;
	postings: Int32Array<ArrayBuffer>;
	frequencies: Uint8Array<ArrayBuffer>;
	termBounds: Float32Array<ArrayBuffer>;
	boundAverage: number;
}

/**
 * Drops dead slots and inverts the live ones into term-major compressed sparse rows (slots
 * ascending within a term), with each term's bound. Pure, over typed arrays only: runs where the lexicon lives when it is
 * small, on an index-builder thread when it is not.
 */
export function invertLexicon(input: LexiconPairs): InvertedLexicon {
	const { live } = input;
	const renumbered = new Int32Array(input.slotCount).fill(-1);
	let next = 0;
	let pairCount = 0;
	for (let slot = 0; slot < input.slotCount; slot++) {
		if (!live[slot]) continue;
		renumbered[slot] = next++;
		pairCount += input.pairStarts[slot + 1] - input.pairStarts[slot];
	}
	const { pairStarts, pairTerms, pairFrequencies, lengths } = next === input.slotCount && next > 0 && input.pairStarts[0] === 0 ? input : compactedPairs(input, renumbered, next, pairCount);
	const pair = pairStarts[next];
	const termCount = input.termCount;
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
	let totalLength = 0;
	for (let slot = 0; slot < next; slot++) totalLength += lengths[slot];
	const boundAverage = boundAverageOf(totalLength, next);
	const termBounds = new Float32Array(termCount);
	for (let term = 0; term < termCount; term++) {
		let largest = 0;
		for (let position = offsets[term]; position < offsets[term + 1]; position++) {
			const value = saturation(frequencies[position], lengths[postings[position]], boundAverage);
			if (value > largest) largest = value;
		}
		termBounds[term] = largest;
	}
	return { slotCount: next, renumbered, lengths, pairStarts, pairTerms, pairFrequencies, offsets, postings, frequencies, termBounds, boundAverage };
}

/**
 * The live slots' pairs and lengths, renumbered densely into arrays of their own. When every slot
 * is live (a build) invertLexicon takes the input's arrays as they are instead: the same values,
 * without a second copy of the pairs (1 GB at a million chunks) beside the postings being built.
 */
function compactedPairs(input: LexiconPairs, renumbered: Int32Array, next: number, pairCount: number): Pick<LexiconPairs, "pairStarts" | "pairTerms" | "pairFrequencies" | "lengths"> {
	// Slot-indexed arrays share one capacity (pairStarts one more), which ensureSlotCapacity relies on.
	const pairStarts = new Int32Array(Math.max(1, next) + 1);
	const pairTerms = new Int32Array(Math.max(1, pairCount));
	const pairFrequencies = new Uint8Array(Math.max(1, pairCount));
	const lengths = new Float32Array(Math.max(1, next));
	let pair = 0;
	for (let slot = 0; slot < input.slotCount; slot++) {
		const target = renumbered[slot];
		if (target < 0) continue;
		for (let source = input.pairStarts[slot]; source < input.pairStarts[slot + 1]; source++) {
			pairTerms[pair] = input.pairTerms[source];
			pairFrequencies[pair++] = input.pairFrequencies[source];
		}
		pairStarts[target + 1] = pair;
		lengths[target] = input.lengths[slot];
	}
	return { pairStarts, pairTerms, pairFrequencies, lengths };
}

/** A lexicon between threads (SourceLexicon.toTransfer): typed arrays and packed strings only. */
export interface LexiconTransfer {
	/** Slot order, dead slots included. */
	chunkIds: PackedStrings;
	chunkIdStarts: Uint32Array<ArrayBuffer>;
	termNames: PackedStrings;
	documentIds: PackedStrings;
	documentVersions: PackedStrings;
	/** Slot -> index in documentIds, -1 for a dead slot. */
	documentOfSlot: Int32Array<ArrayBuffer>;
	documentFrequency: Int32Array<ArrayBuffer>;
	live: Uint8Array<ArrayBuffer>;
	lengths: Float32Array<ArrayBuffer>;
	pairStarts: Int32Array<ArrayBuffer>;
	pairTerms: Int32Array<ArrayBuffer>;
	pairFrequencies: Uint8Array<ArrayBuffer>;
	offsets: Int32Array<ArrayBuffer>;
	postings: Int32Array<ArrayBuffer>;
	frequencies: Uint8Array<ArrayBuffer>;
	termBounds: Float32Array<ArrayBuffer>;
	boundAverage: number;
	lengthNorms: Float32Array<ArrayBuffer>;
	slotCount: number;
	liveCount: number;
	totalLength: number;
	baseSlots: number;
	/**
	 * Terms (ascending) whose base lists a lexicon file also holds as columns, made by its builder
	 * (lexicon-build.ts), and those columns (per term: base-slot frequencies, then impacts). Empty
	 * in a built lexicon; `columns` is never read into memory but from the file (in pieces).
	 */
	columnTerms: Int32Array<ArrayBuffer>;
	columns: Uint8Array<ArrayBuffer>;
	/** Opened in pieces: `postings`, `frequencies`, `pairTerms` and `pairFrequencies` are empty here and read from this file. */
	pieces?: LexiconPiecesLocation;
}

/** Room reserved past a build's estimate of its pairs (reserveFor): chunks differ in length through a source. */
const PAIR_RESERVE_MARGIN = 1.08;

function grown<T extends Int32Array | Uint8Array | Float32Array>(array: T, length: number): T {
	const next = new (array.constructor as new (length: number) => T)(length);
	next.set(array);
	return next;
}

/**
 * The chunk columns a lexicon is built from, in slot order; the headings as a tsvector of their own
 * (see HEADING_WEIGHT). `$1` the source; `$2`, when given, the documents to read.
 */
export function lexicalChunkRowsSql(documents: "all" | "some"): string {
	return `select c.id, c.document_id, ${DOCUMENT_VERSION_SQL} as version, c.search_vector::text as lexemes,
	 case when jsonb_typeof(c.location->'headingPath') = 'array' then to_tsvector('english', c.location->>'headingPath')::text end as heading_lexemes
	 from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
	 where c.source_id = $1 and d.status = 'READY'${documents === "some" ? " and c.document_id = any($2::text[])" : ""}
	 order by c.id`;
}

/** Where and from what size sources' lexicons are kept in files (KnowledgeOptions.indexDirectory, lexiconFileMinChunks). */
export interface LexiconFileSettings {
	/** Undefined: no files, every load builds from PostgreSQL. */
	directory?: string;
	/** Smaller sources build in a second or less: no file. */
	minChunks: number;
	/**
	 * Chunks added or removed since the file was written that make a new one due: what a restart
	 * reads from PostgreSQL on top of the file stays about this many chunks' tsvectors (a few
	 * tenths of a second).
	 */
	foldChunks: number;
}

export const DEFAULT_LEXICON_FILE_SETTINGS: LexiconFileSettings = { minChunks: DEFAULT_KNOWLEDGE_OPTIONS.lexiconFileMinChunks, foldChunks: 2_000 };

/** Below this many pairs a compaction runs where the lexicon lives (a few milliseconds); above, on a builder thread. */
const INLINE_COMPACTION_PAIRS = 200_000;

/**
 * Per-source BM25 indexes held in memory, built from the chunks' `search_vector` (PostgreSQL's own
 * `to_tsvector('english', text)`: same stemming and stop words as full-text search) on first
 * search and brought up to date document by document after a change (see SourceChunkCache).
 * Builds and large re-inversions run on index-builder threads (index-builder-pool.ts), never on
 * the API's event loop.
 *
 * Why not rank in PostgreSQL: at 100k chunks a query of frequent words makes the GIN index return
 * tens of thousands of rows and ts_rank/ts_rank_cd detoast every candidate's tsvector (100-200 ms;
 * capping candidates loses quality), and neither knows inverse document frequency, so common words
 * rank as high as rare ones. Here the whole query is a few typed-array passes (single-digit ms at
 * 100k chunks) and BM25 weighs rare terms up. The cost is memory (~10 bytes per distinct
 * (chunk, lexeme), see memoryBytes) and a build on first search.
 */
export class LexicalIndexCache extends SourceChunkCache<SourceLexicon> {
	/** Lexicon files written (by a load's build or by a fold), folds adopted in place of the lexicon held, and writes that failed (search goes on from memory). */
	readonly fileStatistics = { written: 0, adopted: 0, failures: 0 };
	/** Per lexicon held: whether a file holds it, the changedChunks count it holds, a write under way. */
	private readonly files = new WeakMap<SourceLexicon, { saved: boolean; changedAtSave: number; writing: boolean }>();
	/** Closes the file descriptors of lexicons in pieces once nothing holds them. */
	private readonly descriptors = descriptorCloser();

	constructor(
		notifications: DatabaseNotifications,
		builders: IndexBuilderPool,
		budget: SearchMemoryBudget,
		budgetPrefix: string,
		private readonly fileSettings: LexiconFileSettings = DEFAULT_LEXICON_FILE_SETTINGS,
	) {
		super(notifications, builders, budget, budgetPrefix);
	}

	lexiconFor(em: EntityManager, source: SourceRef): Promise<SourceLexicon> {
		return this.current(em, source);
	}

	async memoryBytes(em: EntityManager, source: SourceRef): Promise<number> {
		return (await this.lexiconFor(em, source)).memoryBytes();
	}

	protected async loadAll(_em: EntityManager, source: SourceRef, options: LoadOptions = {}): Promise<SourceLexicon> {
		const { directory, minChunks } = this.fileSettings;
		const opened = directory && !options.fromDatabase ? await this.openFile(source, directory) : null;
		if (opened) return opened;
		if (directory) {
			// A large source's file, under its fold lock: written (a first build, or the file folded with a change
			// too large to absorb), or taken as it is when another process (the ingesting worker) has just
			// written it, then brought up to date as a restart's is.
			const file = await this.builders.run(source.workspace, {
				kind: "lexicon-file",
				sourceId: source.id,
				directory,
				condition: { minChunks, minChangedChunks: REBUILD_CHANGED_CHUNKS },
			});
			if (file) {
				if (file.written) this.fileStatistics.written++;
				const lexicon = await this.openFile(source, directory, file.name);
				if (!lexicon) throw new Error("A lexicon file just written could not be read back");
				lexicon.restored = !file.written;
				return lexicon;
			}
		}
		const built = await this.builders.run(source.workspace, { kind: "lexicon", sourceId: source.id });
		const lexicon = await SourceLexicon.fromTransfer(built, this.descriptors);
		this.files.set(lexicon, { saved: false, changedAtSave: 0, writing: false });
		return lexicon;
	}

	/** A deleted source's lexicon files. */
	async removeIndexFiles(sourceId: string): Promise<void> {
		const { directory } = this.fileSettings;
		if (directory) await rm(sourceLexiconDirectory(directory, sourceId), { recursive: true, force: true });
	}

	/** The source's lexicon file (its current generation, or `name`), if any and readable; it is then brought up to date by document versions (SourceChunkCache). */
	private async openFile(source: SourceRef, directory: string, name?: string): Promise<SourceLexicon | null> {
		try {
			const transfer = await this.builders.run(source.workspace, { kind: "open-lexicon", sourceId: source.id, directory, name });
			if (!transfer) return null;
			const lexicon = await SourceLexicon.fromTransfer(transfer, this.descriptors);
			lexicon.restored = true;
			this.files.set(lexicon, { saved: true, changedAtSave: 0, writing: false });
			return lexicon;
		} catch {
			// An unreadable or half-removed file: the source builds from PostgreSQL and writes a new one.
			return null;
		}
	}

	/**
	 * A new generation of the file on a builder thread once the source is large enough and has
	 * none, or has changed by foldChunks since its file, or (in pieces) is due a re-inversion; then
	 * adopted in pieces in place of the lexicon held, so what a search reads from memory stays the
	 * changes since the last fold.
	 */
	private writeFileIfDue(source: SourceRef, lexicon: SourceLexicon): void {
		const { directory, minChunks, foldChunks } = this.fileSettings;
		const file = this.files.get(lexicon);
		if (!directory || !file || file.writing || lexicon.size < minChunks) return;
		const due = !file.saved || lexicon.changedChunks - file.changedAtSave >= foldChunks || (lexicon.inPieces && lexicon.compactionDue);
		if (!due) return;
		file.writing = true;
		this.builders
			.run(source.workspace, { kind: "lexicon-file", sourceId: source.id, directory })
			.then(async (written) => {
				if (!written) throw new Error("A lexicon file was not written");
				this.fileStatistics.written++;
				const newer = await this.builders.run(source.workspace, { kind: "open-lexicon", sourceId: source.id, directory, name: written.name });
				if (!newer) throw new Error("A lexicon file just written could not be read back");
				lexicon.adopt(await SourceLexicon.fromTransfer(newer, this.descriptors));
				file.saved = true;
				file.changedAtSave = 0;
				this.fileStatistics.adopted++;
				this.invalidate(source.id);
			})
			.catch(() => {
				this.fileStatistics.failures++;
			})
			.finally(() => {
				file.writing = false;
			});
	}

	protected async applyChanges(_em: EntityManager, source: SourceRef, lexicon: SourceLexicon, changes: { removed: string[]; changed: string[] }): Promise<void> {
		const epoch = lexicon.epoch;
		const delta = changes.changed.length
			? await SourceLexicon.fromTransfer(await this.builders.run(source.workspace, { kind: "lexicon", sourceId: source.id, documentIds: changes.changed }))
			: null;
		if (lexicon.epoch !== epoch) {
			// A newer generation came in meanwhile: these changes were read against the old one.
			this.invalidate(source.id);
			return;
		}
		lexicon.absorb(changes.removed, delta);
		this.writeFileIfDue(source, lexicon);
		// In pieces, the re-inversion is the next generation of the file (writeFileIfDue); until then the tail serves.
		if (!lexicon.compactionDue || lexicon.inPieces) return;
		if (lexicon.pairCount <= INLINE_COMPACTION_PAIRS) {
			lexicon.settle();
			return;
		}
		// Copies go: a search that already holds the lexicon may still rank with it. Nothing else changes it until this refresh ends, but a fold may be adopted.
		const pairs = lexicon.pairs();
		const copies: LexiconPairs = { ...pairs, live: pairs.live.slice(), lengths: pairs.lengths.slice(), pairStarts: pairs.pairStarts.slice(), pairTerms: pairs.pairTerms.slice(), pairFrequencies: pairs.pairFrequencies.slice() };
		const buffers = buffersOf(copies.live, copies.lengths, copies.pairStarts, copies.pairTerms, copies.pairFrequencies);
		const inverted = await this.builders.run(source.workspace, { kind: "invert-lexicon", pairs: copies }, buffers);
		if (lexicon.epoch === epoch) lexicon.completeCompaction(inverted);
	}
}

/** The query's lexemes with their counts, by PostgreSQL's own analysis (`to_tsvector('english', …)`). */
export async function queryLexemes(em: EntityManager, query: string): Promise<Map<string, number>> {
	const [row] = await driverQuery<{ lexemes: string }>(em, "select to_tsvector('english', $1)::text as lexemes", [query]);
	const terms = new Map<string, number>();
	parseTsvector(row?.lexemes ?? "", (lexeme, frequency) => terms.set(lexeme, frequency));
	return terms;
}

const [QUOTE, BACKSLASH, COLON, COMMA, SPACE] = ["'", "\\", ":", ",", " "].map((character) => character.charCodeAt(0));

/**
 * Walks tsvector output (`'lexeme':1,4B 'other':2`): each lexeme with its number of positions.
 * In the output a quote inside a lexeme is doubled and a backslash escaped; a lexeme without
 * positions (a stripped tsvector) counts once.
 */
export function parseTsvector(text: string, visit: (lexeme: string, frequency: number) => void): void {
	const length = text.length;
	let index = 0;
	while (index < length) {
		if (text.charCodeAt(index) !== QUOTE) {
			index++;
			continue;
		}
		index++;
		// Most lexemes hold no quote or backslash: one slice instead of a string built character by character.
		let end = index;
		while (end < length && text.charCodeAt(end) !== QUOTE && text.charCodeAt(end) !== BACKSLASH) end++;
		let lexeme: string;
		if (end < length && text.charCodeAt(end) === QUOTE && text.charCodeAt(end + 1) !== QUOTE) {
			lexeme = text.slice(index, end);
			index = end + 1;
		} else {
			lexeme = "";
			while (index < length) {
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
		}
		let frequency = 1;
		if (text.charCodeAt(index) === COLON) {
			while (index < length && text.charCodeAt(index) !== SPACE) {
				if (text.charCodeAt(index) === COMMA) frequency++;
				index++;
			}
		}
		visit(lexeme, frequency);
	}
}
