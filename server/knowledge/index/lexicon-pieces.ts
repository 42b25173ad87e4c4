import { closeSync, openSync, readSync } from "node:fs";
import type { PostingRange } from "./pruned-top-k";

/**
 * The arrays of a lexicon file (lexicon-files.ts) that a lexicon opened in pieces leaves on disk:
 * its postings (term-major) and its pairs (chunk-major), nine tenths of its bytes. Everything
 * else (the vocabulary, per-term offsets and bounds, per-chunk lengths, liveness and pair starts,
 * chunk ids) is read into memory, so memory grows with the chunks and the vocabulary, not with
 * the text, and opening a million-chunk source reads a tenth of its file.
 */
export const ARRAYS_LEFT_ON_DISK = ["postings", "frequencies", "pairTerms", "pairFrequencies"] as const;

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
 * Postings a query's lists may hold together when read at once (20 MB of buffers); a query over
 * more (dozens of words each in most chunks of a million) is ranked list by list.
 */
const MAX_QUERY_POSTINGS = 4 * 1024 * 1024;

/** Postings the reused buffers keep room for between queries (5 MB); larger reads use buffers of their own. */
const KEPT_QUERY_POSTINGS = 1024 * 1024;

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
 * Reads of a lexicon file's postings and pairs, positional and synchronous: the file was just
 * written or read (its pages are in the page cache), a read is a copy of a few kilobytes, and a
 * search ranks synchronously. The descriptor stays open as long as the lexicon, so a generation
 * removed from the directory (index-generations.ts) stays readable until its lexicon lets go;
 * it is never closed explicitly (a search may still hold the lexicon after it was replaced or
 * evicted) but by `closer` once the pieces are unreachable.
 */
export class LexiconPieces {
	private readonly descriptor: number;
	/** What a term's list and a slot's pairs are read into; grown as needed, reused (a search reads one at a time). */
	private readonly listBuffers: ParallelBuffers = { ids: new Int32Array(0), counts: new Uint8Array(0) };
	private readonly pairBuffers: ParallelBuffers = { ids: new Int32Array(256), counts: new Uint8Array(256) };

	constructor(
		readonly location: LexiconPiecesLocation,
		closer?: FinalizationRegistry<number>,
	) {
		this.descriptor = openSync(location.path, "r");
		closer?.register(this, this.descriptor);
	}

	/** Postings [start, end) of the file's term-major arrays (valid until the next read of postings). */
	postings(start: number, end: number): PostingRange {
		const { ids, counts } = this.readParallel(this.listBuffers, "postings", "frequencies", start, end);
		return { slots: ids, frequencies: counts, start: 0, end: end - start };
	}

	/**
	 * The postings of several ranges at once, one after another in one buffer (valid until the next
	 * read of postings): a query's lists, for a ranking that moves through all of them together.
	 * Null past MAX_QUERY_POSTINGS (the caller ranks list by list instead).
	 */
	postingLists(ranges: { start: number; end: number }[]): PostingRange[] | null {
		const total = ranges.reduce((sum, { start, end }) => sum + end - start, 0);
		if (total > MAX_QUERY_POSTINGS) return null;
		// Kept for the next query up to KEPT_QUERY_POSTINGS; a larger read gets buffers of its own.
		const buffers = total <= KEPT_QUERY_POSTINGS ? this.grownListBuffers(total) : { ids: new Int32Array(total), counts: new Uint8Array(total) };
		let at = 0;
		return ranges.map(({ start, end }) => {
			const length = end - start;
			this.read("postings", start, end, buffers.ids.subarray(at, at + length));
			this.read("frequencies", start, end, buffers.counts.subarray(at, at + length));
			const range = { slots: buffers.ids, frequencies: buffers.counts, start: at, end: at + length };
			at += length;
			return range;
		});
	}

	/** Pairs [start, end) of the file's chunk-major arrays (valid until the next read of pairs). */
	pairs(start: number, end: number): PairRange {
		const { ids, counts } = this.readParallel(this.pairBuffers, "pairTerms", "pairFrequencies", start, end);
		return { terms: ids, frequencies: counts, start: 0, end: end - start };
	}

	/** Bytes of the buffers reads go into. */
	get scratchBytes(): number {
		return [this.listBuffers, this.pairBuffers].reduce((sum, buffers) => sum + buffers.ids.byteLength + buffers.counts.byteLength, 0);
	}

	/** Elements [start, end) of two parallel arrays (ids and their counts) into `buffers`, grown first if too small. */
	private readParallel(buffers: ParallelBuffers, idArray: ArrayLeftOnDisk, countArray: ArrayLeftOnDisk, start: number, end: number): ParallelBuffers {
		grow(buffers, end - start);
		this.read(idArray, start, end, buffers.ids);
		this.read(countArray, start, end, buffers.counts);
		return buffers;
	}

	private grownListBuffers(length: number): ParallelBuffers {
		grow(this.listBuffers, length);
		return this.listBuffers;
	}

	private read(array: ArrayLeftOnDisk, start: number, end: number, into: Int32Array | Uint8Array): void {
		const width = into.BYTES_PER_ELEMENT;
		readFully(this.descriptor, new Uint8Array(into.buffer, into.byteOffset, (end - start) * width), this.location.offsets[array] + start * width);
	}
}

/** Grows `buffers` (doubling) to hold `length` elements. */
function grow(buffers: ParallelBuffers, length: number): void {
	if (buffers.ids.length >= length) return;
	buffers.ids = new Int32Array(Math.max(length, 2 * buffers.ids.length));
	buffers.counts = new Uint8Array(buffers.ids.length);
}

export function readFully(descriptor: number, bytes: Uint8Array, position: number): void {
	for (let read = 0; read < bytes.length; ) {
		const count = readSync(descriptor, bytes, read, bytes.length - read, position + read);
		if (count === 0) throw new Error("A lexicon file ended early");
		read += count;
	}
}
