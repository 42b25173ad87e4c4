import { closeSync, openSync, readSync } from "node:fs";
import type { PairRange, PostingRange } from "./pruned-top-k";

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
 * Reads of a lexicon file's postings and pairs, positional and synchronous: the file was just
 * written or read (its pages are in the page cache), a read is a copy of a few kilobytes, and a
 * search ranks synchronously. The descriptor stays open as long as the lexicon, so a generation
 * removed from the directory (index-generations.ts) stays readable until its lexicon lets go;
 * it is never closed explicitly (a search may still hold the lexicon after it was replaced or
 * evicted) but by `closer` once the pieces are unreachable.
 */
export class LexiconPieces {
	private readonly descriptor: number;
	/** What a list or a slot's pairs is read into; grown as needed, reused (a search reads one at a time). */
	private listSlots = new Int32Array(0);
	private listFrequencies = new Uint8Array(0);
	private pairTerms = new Int32Array(256);
	private pairFrequencies = new Uint8Array(256);

	constructor(
		readonly location: LexiconPiecesLocation,
		closer?: FinalizationRegistry<number>,
	) {
		this.descriptor = openSync(location.path, "r");
		closer?.register(this, this.descriptor);
	}

	/** Postings [start, end) of the file's term-major arrays (valid until the next read of postings). */
	postings(start: number, end: number): PostingRange {
		if (this.listSlots.length < end - start) {
			this.listSlots = new Int32Array(Math.max(end - start, 2 * this.listSlots.length));
			this.listFrequencies = new Uint8Array(this.listSlots.length);
		}
		this.read("postings", start, end, this.listSlots);
		this.read("frequencies", start, end, this.listFrequencies);
		return { slots: this.listSlots, frequencies: this.listFrequencies, start: 0, end: end - start };
	}

	/** Pairs [start, end) of the file's chunk-major arrays (valid until the next read of pairs). */
	pairs(start: number, end: number): PairRange {
		if (this.pairTerms.length < end - start) {
			this.pairTerms = new Int32Array(Math.max(end - start, 2 * this.pairTerms.length));
			this.pairFrequencies = new Uint8Array(this.pairTerms.length);
		}
		this.read("pairTerms", start, end, this.pairTerms);
		this.read("pairFrequencies", start, end, this.pairFrequencies);
		return { terms: this.pairTerms, frequencies: this.pairFrequencies, start: 0, end: end - start };
	}

	/** Bytes of the buffers reads go into. */
	get scratchBytes(): number {
		return this.listSlots.byteLength + this.listFrequencies.byteLength + this.pairTerms.byteLength + this.pairFrequencies.byteLength;
	}

	private read(array: ArrayLeftOnDisk, start: number, end: number, into: Int32Array | Uint8Array): void {
		const width = into.BYTES_PER_ELEMENT;
		readFully(this.descriptor, new Uint8Array(into.buffer, into.byteOffset, (end - start) * width), this.location.offsets[array] + start * width);
	}
}

export function readFully(descriptor: number, bytes: Uint8Array, position: number): void {
	for (let read = 0; read < bytes.length; ) {
		const count = readSync(descriptor, bytes, read, bytes.length - read, position + read);
		if (count === 0) throw new Error("A lexicon file ended early");
		read += count;
	}
}
