import { closeSync, openSync } from "node:fs";
import { FileReads, type PositionalRead } from "../../shared/positional-reads";
import { runToEnd, type Steps } from "../../shared/time-slices";
import type { DenseColumns } from "./impact-top-k";
import type { PostingRange } from "./pruned-top-k";

/**
 * The arrays of a lexicon file (lexicon-files.ts) that a lexicon opened in pieces leaves on disk:
 * its postings (term-major) and its pairs (chunk-major), nine tenths of its bytes, and its chunk
 * ids' bytes (read for a ranking's hits only: 30 MB at a million chunks that the API's thread
 * would otherwise adopt at once, enough external memory to start a full collection of its heap).
 * The ids' bounds (4 MB) are held: a hit's id is then one read, not two.
 * Everything else (the vocabulary, per-term offsets and bounds, per-chunk lengths, liveness and
 * pair starts) is read into memory, so memory grows with the chunks and the vocabulary, not
 * with the text, and opening a million-chunk source reads a tenth of its file. The frequent words'
 * columns its builder made (a sixth of its bytes at a million chunks) are read a word at a time,
 * when a ranking first takes the word by its columns.
 */
export const ARRAYS_LEFT_ON_DISK = ["postings", "frequencies", "pairTerms", "pairFrequencies", "chunkIds", "columns"] as const;

export type ArrayLeftOnDisk = (typeof ARRAYS_LEFT_ON_DISK)[number];

/** A lexicon file's generation and where in it each array left on disk starts (bytes). */
export interface LexiconPiecesLocation {
	path: string;
	offsets: Record<ArrayLeftOnDisk, number>;
}

/**
 * Closes the descriptors of pieces no longer reachable (a lexicon replaced by a newer generation,
 * or evicted). Owned by the cache that opens lexicons (one per process); pieces opened without one
 * (tests, benchmarks) keep their descriptor until the process ends.
 */
export function descriptorCloser(): FinalizationRegistry<number> {
	return new FinalizationRegistry<number>((descriptor) => {
		try {
			closeSync(descriptor);
		} catch {
			// Already closed.
		}
	});
}

/**
 * Postings a query's lists may hold together when read at once (20 MB of buffers, kept for the
 * next query: a fresh buffer per query of frequent words at a million chunks was megabytes of
 * external memory per search, which V8 answers with collections on the API's thread); a query
 * over more (dozens of words each in most chunks of a million) is ranked list by list.
 */
const MAX_QUERY_POSTINGS = 4 * 1024 * 1024;

/** One chunk's (term, frequency) pairs: [start, end) of `terms` and `frequencies` (in memory, or read from a lexicon file). */
export interface PairRange {
	terms: Int32Array;
	frequencies: Uint8Array;
	start: number;
	end: number;
}

/** Reused buffers for a read of two parallel arrays: ids (slots or terms) and their counts. */
interface ParallelBuffers {
	ids: Int32Array;
	counts: Uint8Array;
}

/**
 * Reads of a lexicon file's postings and pairs, positional. A ranking's reads of lists and columns
 * (megabytes at a million chunks) are steps' FileReads: made off the event loop when it runs in
 * slices, for the page cache may not hold them (a host that pages out idle file cache does so
 * within a minute) and their buffers' pages may be new. So are a search's chunk ids and its
 * feedback chunks' pairs, all of a ranking's together: about 70 small reads a search at 50
 * candidates, where 120 were made one by one on the API's thread. The read buffers are reused
 * because a lexicon's rankings take turns (SourceLexicon.rankInSlices): none reads into them while
 * another still ranks from them. The descriptor stays open as long as the lexicon, so a generation
 * removed from the directory (index-generations.ts) stays readable until its lexicon lets go; it
 * is never closed explicitly (a search may still hold the lexicon after it was replaced or
 * evicted) but by `closer` once the pieces are unreachable.
 */
export class LexiconPieces {
	private readonly descriptor: number;
	/** What a term's list and a slot's pairs are read into; grown as needed, reused (a search reads one at a time). */
	private readonly listBuffers: ParallelBuffers = { ids: new Int32Array(0), counts: new Uint8Array(0) };
	private readonly pairBuffers: ParallelBuffers = { ids: new Int32Array(256), counts: new Uint8Array(256) };
	/** Where postingLists' last call put each range in listBuffers: its start in the file -> its position there, and its end in the file. */
	private lastRead = new Map<number, { at: number; end: number }>();

	constructor(
		readonly location: LexiconPiecesLocation,
		private readonly closer?: FinalizationRegistry<number>,
	) {
		this.descriptor = openSync(location.path, "r");
		closer?.register(this, this.descriptor, this);
	}

	/** Closes the file now, for a reader that knows nothing else holds these pieces (a fold's base); others wait for the closer. */
	close(): void {
		// The closer must not close the number again: by then it may be another file's.
		this.closer?.unregister(this);
		closeSync(this.descriptor);
	}

	/** Postings [start, end) of the file's term-major arrays (valid until the next read of postings). */
	postings(start: number, end: number): PostingRange {
		return runToEnd(this.postingsSteps(start, end));
	}

	/** postings, its read a step's. */
	*postingsSteps(start: number, end: number): Steps<PostingRange> {
		this.lastRead = new Map();
		const { ids, counts } = yield* this.parallelSteps(this.listBuffers, "postings", "frequencies", start, end);
		return { slots: ids, frequencies: counts, start: 0, end: end - start };
	}

	/**
	 * The postings of several ranges at once, in one buffer (valid until the next read of postings):
	 * a query's lists, for a ranking that moves through all of them together. A range the last call
	 * read is not read again but used where it is (RM3's second pass ranks the query's own words
	 * again, the longest lists, beside the feedback terms); the others are read after it. Null past
	 * MAX_QUERY_POSTINGS (the caller ranks list by list instead).
	 */
	postingLists(ranges: { start: number; end: number }[]): PostingRange[] | null {
		return runToEnd(this.postingListsSteps(ranges));
	}

	/** postingLists, its lists read together (a frequent word's list at a million chunks is megabytes). */
	*postingListsSteps(ranges: { start: number; end: number }[]): Steps<PostingRange[] | null> {
		const total = ranges.reduce((sum, { start, end }) => sum + end - start, 0);
		if (total > MAX_QUERY_POSTINGS) return null;
		const kept = new Map<number, number>();
		let at = 0;
		for (const { start, end } of ranges) {
			const last = this.lastRead.get(start);
			if (end === start || !last || last.end !== end) continue;
			kept.set(start, last.at);
			at = Math.max(at, last.at + end - start);
		}
		const unread = ranges.reduce((sum, { start, end }) => sum + (kept.has(start) ? 0 : end - start), 0);
		if (at + unread > MAX_QUERY_POSTINGS) {
			kept.clear();
			at = 0;
		}
		growKeeping(this.listBuffers, at + unread, at);
		const { ids, counts } = this.listBuffers;
		// Nothing is kept for the next call until every list is read: one given up half way leaves no stale placement.
		this.lastRead = new Map();
		const placed = new Map<number, { at: number; end: number }>();
		const lists: PostingRange[] = [];
		const reads: PositionalRead[] = [];
		for (const { start, end } of ranges) {
			const length = end - start;
			let position = kept.get(start);
			if (position === undefined) {
				position = at;
				at += length;
				if (length > 0) {
					reads.push(this.readOf("postings", start, end, ids.subarray(position, position + length)));
					reads.push(this.readOf("frequencies", start, end, counts.subarray(position, position + length)));
				}
			}
			if (length > 0) placed.set(start, { at: position, end });
			lists.push({ slots: ids, frequencies: counts, start: position, end: position + length });
		}
		if (reads.length > 0) yield new FileReads(reads);
		this.lastRead = placed;
		return lists;
	}

	/**
	 * The file's `index`-th frequent word's base columns (as its builder made them, one byte per
	 * base slot each) read into `into`'s arrays, which are the base's size (a megabyte each at a
	 * million chunks, where making them from the word's postings took 10-20 ms on the API's thread).
	 */
	*columnsSteps(index: number, into: DenseColumns): Steps<DenseColumns> {
		const rows = into.frequencies.length;
		const at = this.location.offsets.columns + index * 2 * rows;
		yield new FileReads([
			{ descriptor: this.descriptor, into: into.frequencies, position: at },
			{ descriptor: this.descriptor, into: new Uint8Array(into.impacts.buffer, into.impacts.byteOffset, rows), position: at + rows },
		]);
		return into;
	}

	/** Pairs [start, end) of the file's chunk-major arrays (valid until the next read of pairs). */
	pairs(start: number, end: number): PairRange {
		const { ids, counts } = runToEnd(this.parallelSteps(this.pairBuffers, "pairTerms", "pairFrequencies", start, end));
		return { terms: ids, frequencies: counts, start: 0, end: end - start };
	}

	/**
	 * Chunk ids at byte ranges [start, end) of the file's packed ids (their bounds are held in
	 * memory: PackedStringTable), read together.
	 */
	*chunkIdsSteps(ranges: readonly { start: number; end: number }[]): Steps<string[]> {
		if (ranges.length === 0) return [];
		const at = new Uint32Array(ranges.length + 1);
		ranges.forEach(({ start, end }, index) => (at[index + 1] = at[index] + end - start));
		const bytes = Buffer.allocUnsafe(at[ranges.length]);
		yield new FileReads(ranges.map(({ start }, index) => ({ descriptor: this.descriptor, into: bytes.subarray(at[index], at[index + 1]), position: this.location.offsets.chunkIds + start })));
		return ranges.map((_, index) => bytes.toString("utf8", at[index], at[index + 1]));
	}

	/** Pairs of several slots' ranges of the file's chunk-major arrays, each range into arrays of its own, read together. */
	*pairRangesSteps(ranges: readonly { start: number; end: number }[]): Steps<{ terms: Int32Array; frequencies: Uint8Array }[]> {
		const read = ranges.map(({ start, end }) => ({ terms: new Int32Array(end - start), frequencies: new Uint8Array(end - start) }));
		const reads = ranges.flatMap(({ start, end }, index) => [this.readOf("pairTerms", start, end, read[index].terms), this.readOf("pairFrequencies", start, end, read[index].frequencies)]);
		if (reads.length > 0) yield new FileReads(reads);
		return read;
	}

	/** Bytes of the buffers reads go into. */
	get scratchBytes(): number {
		return [this.listBuffers, this.pairBuffers].reduce((sum, buffers) => sum + buffers.ids.byteLength + buffers.counts.byteLength, 0);
	}

	/** Elements [start, end) of two parallel arrays (ids and their counts) into `buffers`, grown first if too small; the reads a step's. */
	private *parallelSteps(buffers: ParallelBuffers, idArray: ArrayLeftOnDisk, countArray: ArrayLeftOnDisk, start: number, end: number): Steps<ParallelBuffers> {
		grow(buffers, end - start);
		if (end > start) yield new FileReads([this.readOf(idArray, start, end, buffers.ids), this.readOf(countArray, start, end, buffers.counts)]);
		return buffers;
	}

	/** The read of elements [start, end) of one of the file's arrays into the start of `into`. */
	private readOf(array: ArrayLeftOnDisk, start: number, end: number, into: Int32Array | Uint8Array): PositionalRead {
		const width = into.BYTES_PER_ELEMENT;
		return { descriptor: this.descriptor, into: new Uint8Array(into.buffer, into.byteOffset, (end - start) * width), position: this.location.offsets[array] + start * width };
	}
}

/** Grows `buffers` (doubling) to hold `length` elements. */
function grow(buffers: ParallelBuffers, length: number): void {
	growKeeping(buffers, length, 0);
}

/** Grows `buffers` (doubling, up to MAX_QUERY_POSTINGS when that is enough) to hold `length` elements, keeping their first `keep`. */
function growKeeping(buffers: ParallelBuffers, length: number, keep: number): void {
	if (buffers.ids.length >= length) return;
	const capacity = Math.max(length, Math.min(2 * buffers.ids.length, MAX_QUERY_POSTINGS));
	const ids = new Int32Array(capacity);
	const counts = new Uint8Array(capacity);
	ids.set(buffers.ids.subarray(0, keep));
	counts.set(buffers.counts.subarray(0, keep));
	buffers.ids = ids;
	buffers.counts = counts;
}
