import { closeSync, mkdirSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { currentGeneration, readFully, sourceLexiconDirectory, temporaryPath, writeFully } from "./index-generations";
import type pg from "pg";
import type { DenseColumns } from "./impact-top-k";
import { boundAverageOf, DEFAULT_COLUMN_RANKING, type FileColumnThresholds, fillDenseColumns, frequentTermsOf, type LexicalChunkRow, lexicalChunkRowsSql, saturation, SourceLexicon } from "./lexical-index";
import { type DeferredArrays, readLexiconFile, writeLexiconFile } from "./lexicon-files";
import { type FoldCondition, foldIsDue, readyDocumentVersions, versionChanges } from "./source-chunk-cache";
import type { PageReader } from "./vector-index-build";

/**
 * How much of a lexicon file's build is held in memory at once: pairs read from PostgreSQL before
 * they go to disk (4M: 20 MB), and postings inverted per pass over them (16M: 80 MB).
 */
export interface LexiconBuildLimits {
	spillPairs: number;
	passPostings: number;
}

export const DEFAULT_LEXICON_BUILD_LIMITS: LexiconBuildLimits = { spillPairs: 4 * 1024 * 1024, passPostings: 16 * 1024 * 1024 };

/** Whose columns a file holds: the words a ranking with the default options takes as frequent. */
const DEFAULT_FILE_COLUMNS: FileColumnThresholds = { minimumSlots: DEFAULT_COLUMN_RANKING.minimumSlots, frequentShare: DEFAULT_COLUMN_RANKING.frequentShare };

/** Pairs read back from disk per read while inverting. */
const READ_PAIRS = 1024 * 1024;

/**
 * Builds a source's lexicon file from its rows (page by page, as an index-builder thread reads
 * them) with bounded memory, and makes it the current generation; returns its name and chunks.
 * An in-memory build holds every (chunk, term) pair and every posting at once (1-2 GB at a million
 * chunks, on top of the server's own memory); here the pairs go to a scratch file as they come
 * (limits.spillPairs in memory), and the postings are inverted from it term range by term range
 * (limits.passPostings each), written straight into place. Only the per-chunk and per-term arrays
 * (a few bytes per chunk and term) are held whole. The file is the one an in-memory build writes,
 * byte for byte (tested). Past `columns.minimumSlots` chunks, the file also holds the columns
 * (impact-top-k.ts) of each word in at least `columns.frequentShare` of them, made as its postings
 * are inverted: a ranking reads a word's columns (two bytes a chunk) rather than reading its
 * postings and making them on the API's thread (8-13 ms a word at a million chunks); 376 MiB more
 * file there (197 words). The scratch files are held open while used: one left by a process that
 * died is removed with the generations that outlive it (removeOldGenerations).
 */
export async function buildLexiconFile(
	root: string,
	sourceId: string,
	pages: AsyncIterable<LexicalChunkRow[]>,
	limits: LexiconBuildLimits = DEFAULT_LEXICON_BUILD_LIMITS,
	columns: FileColumnThresholds = DEFAULT_FILE_COLUMNS,
): Promise<{ name: string; chunks: number }> {
	return buildLexiconFileWith(
		root,
		sourceId,
		async (lexicon, spillIfDue) => {
			for await (const rows of pages) {
				lexicon.addRows(rows);
				spillIfDue();
			}
		},
		limits,
		columns,
	);
}

/**
 * buildLexiconFile's work for chunks added by `fill` (rows, or a fold's copy of its base and its
 * changed documents' rows), which calls `spillIfDue` after each addition of some size.
 */
async function buildLexiconFileWith(
	root: string,
	sourceId: string,
	fill: (lexicon: SourceLexicon, spillIfDue: () => void) => Promise<void>,
	limits: LexiconBuildLimits = DEFAULT_LEXICON_BUILD_LIMITS,
	columns: FileColumnThresholds = DEFAULT_FILE_COLUMNS,
): Promise<{ name: string; chunks: number }> {
	const directory = sourceLexiconDirectory(root, sourceId);
	mkdirSync(directory, { recursive: true });
	const scratch = temporaryPath(join(directory, "build"));
	const termsPath = `${scratch}.terms`;
	const frequenciesPath = `${scratch}.frequencies`;
	const termsFile = openSync(termsPath, "w+");
	const frequenciesFile = openSync(frequenciesPath, "w+");
	try {
		const lexicon = new SourceLexicon();
		let spilled = 0;
		const spill = () =>
			lexicon.spillPairs((terms, frequencies) => {
				writeFully(termsFile, new Uint8Array(terms.buffer, terms.byteOffset, terms.byteLength), spilled * 4);
				writeFully(frequenciesFile, frequencies, spilled);
				spilled += terms.length;
			});
		await fill(lexicon, () => {
			if (lexicon.pairCount - spilled >= limits.spillPairs) spill();
		});
		spill();
		const shape = lexicon.spilledShape();
		const { termCount, slotCount, documentFrequency, lengths } = shape;
		// Every chunk is live: a term's postings are its chunks.
		const offsets = new Int32Array(termCount + 1);
		for (let term = 0; term < termCount; term++) offsets[term + 1] = offsets[term] + documentFrequency[term];
		let totalLength = 0;
		for (let slot = 0; slot < slotCount; slot++) totalLength += lengths[slot];
		const boundAverage = boundAverageOf(totalLength, slotCount);
		const termBounds = new Float32Array(termCount);
		lexicon.completeSpilledBuild(offsets, termBounds, boundAverage);
		const columnTerms = frequentTermsOf(offsets, slotCount, columns);
		const transfer = { ...lexicon.toTransfer().transfer, columnTerms };
		const deferred: DeferredArrays = {
			arrays: [
				{ field: "pairTerms", type: "Int32Array", length: spilled },
				{ field: "pairFrequencies", type: "Uint8Array", length: spilled },
				{ field: "postings", type: "Int32Array", length: spilled },
				{ field: "frequencies", type: "Uint8Array", length: spilled },
				{ field: "columns", type: "Uint8Array", length: columnTerms.length * 2 * slotCount },
			],
			write(descriptor, offsetOf) {
				copyInto(termsFile, descriptor, spilled * 4, offsetOf("pairTerms"));
				copyInto(frequenciesFile, descriptor, spilled, offsetOf("pairFrequencies"));
				// One word's columns at a time, reused (a fresh pair of megabytes per word costs more to fault in than to clear).
				const made: DenseColumns = { frequencies: new Uint8Array(columnTerms.length > 0 ? slotCount : 0), impacts: new Int8Array(columnTerms.length > 0 ? slotCount : 0) };
				let nextColumns = 0;
				invertSpilled({ termsFile, frequenciesFile, pairs: spilled, shape, offsets, termBounds, boundAverage, passPostings: limits.passPostings }, (from, slots, frequencies, lastTerm) => {
					writeFully(descriptor, new Uint8Array(slots.buffer, slots.byteOffset, slots.byteLength), offsetOf("postings") + from * 4);
					writeFully(descriptor, frequencies, offsetOf("frequencies") + from);
					// The range's bounds are taken: its frequent words' columns are what a ranking of this base would make.
					for (; nextColumns < columnTerms.length && columnTerms[nextColumns] < lastTerm; nextColumns++) {
						const term = columnTerms[nextColumns];
						fillDenseColumns({ slots, frequencies, start: offsets[term] - from, end: offsets[term + 1] - from }, termBounds[term], lengths, boundAverage, made);
						const at = offsetOf("columns") + nextColumns * 2 * slotCount;
						writeFully(descriptor, made.frequencies, at);
						writeFully(descriptor, new Uint8Array(made.impacts.buffer), at + slotCount);
					}
				});
				// The bounds were taken while the postings were inverted, after the small arrays (theirs among them) were written.
				writeFully(descriptor, new Uint8Array(termBounds.buffer), offsetOf("termBounds"));
			},
		};
		const name = writeLexiconFile(root, sourceId, transfer, deferred);
		return { name, chunks: slotCount };
	} finally {
		closeSync(termsFile);
		closeSync(frequenciesFile);
		rmSync(termsPath, { force: true });
		rmSync(frequenciesPath, { force: true });
	}
}

/**
 * Term-major postings from the spilled chunk-major pairs: for each range of terms whose postings
 * fit in passPostings, one pass over the pairs fills them (chunks ascending within a term, as
 * invertLexicon does) and takes each term's bound; `emit` gets the range's postings from posting
 * `from` on, for the terms before `lastTerm` (their bounds set).
 */
function invertSpilled(
	input: {
		termsFile: number;
		frequenciesFile: number;
		pairs: number;
		shape: { termCount: number; slotCount: number; pairStarts: Int32Array; lengths: Float32Array };
		offsets: Int32Array;
		termBounds: Float32Array;
		boundAverage: number;
		passPostings: number;
	},
	emit: (from: number, slots: Int32Array, frequencies: Uint8Array, lastTerm: number) => void,
): void {
	const { termsFile, frequenciesFile, pairs, shape, offsets, termBounds, boundAverage, passPostings } = input;
	const { termCount, pairStarts, lengths } = shape;
	const readTerms = new Int32Array(Math.min(READ_PAIRS, Math.max(1, pairs)));
	const readFrequencies = new Uint8Array(readTerms.length);
	for (let first = 0; first < termCount; ) {
		// At least one term per pass, however long its list.
		let last = first + 1;
		while (last < termCount && offsets[last + 1] - offsets[first] <= passPostings) last++;
		const from = offsets[first];
		const slots = new Int32Array(offsets[last] - from);
		const frequencies = new Uint8Array(slots.length);
		const cursor = offsets.slice(first, last);
		const largest = new Float64Array(last - first);
		let slot = 0;
		for (let start = 0; start < pairs; start += readTerms.length) {
			const count = Math.min(readTerms.length, pairs - start);
			readFully(termsFile, new Uint8Array(readTerms.buffer, 0, count * 4), start * 4);
			readFully(frequenciesFile, readFrequencies.subarray(0, count), start);
			for (let index = 0; index < count; index++) {
				const term = readTerms[index];
				if (term < first || term >= last) continue;
				const pair = start + index;
				while (pairStarts[slot + 1] <= pair) slot++;
				const position = cursor[term - first]++ - from;
				slots[position] = slot;
				frequencies[position] = readFrequencies[index];
				const value = saturation(readFrequencies[index], lengths[slot], boundAverage);
				if (value > largest[term - first]) largest[term - first] = value;
			}
		}
		for (let term = first; term < last; term++) termBounds[term] = largest[term - first];
		emit(from, slots, frequencies, last);
		first = last;
	}
}

/** Copies `length` bytes of a scratch file into the lexicon file at `position`. */
function copyInto(source: number, target: number, length: number, position: number): void {
	const block = new Uint8Array(Math.min(length, 8 * 1024 * 1024));
	for (let done = 0; done < length; done += block.length) {
		const part = block.subarray(0, Math.min(block.length, length - done));
		readFully(source, part, done);
		writeFully(target, part, position + done);
	}
}

/**
 * A new lexicon file for the source: the current one (if any) opened in pieces, the chunks of
 * documents removed or re-ingested since left out and those of new or re-ingested documents read
 * and added; or, with no file yet, built from every READY chunk. One repeatable-read snapshot, so
 * the file's document versions are exactly what it holds. Built with bounded memory
 * (lexicon-build.ts): the file of a million-chunk source is gigabytes, and a fold holding it
 * whole, then re-inverting it, took twice that. Runs on an index-builder thread, under the
 * source's fold lock (source-chunk-cache.ts, withFoldLock). With `condition`, the file is left as
 * it is when the condition says so: then the current generation (`written: false`), or null when
 * there is none. A current file that cannot be read is built anew.
 */
export async function foldLexiconFile(
	client: pg.Client,
	pagesOf: PageReader,
	root: string,
	sourceId: string,
	options: { condition?: FoldCondition; limits?: LexiconBuildLimits; columns?: FileColumnThresholds } = {},
): Promise<{ name: string; chunks: number; written: boolean } | null> {
	const { condition, limits, columns } = options;
	const name = currentGeneration(sourceLexiconDirectory(root, sourceId));
	const opened = name ? readableLexiconFile(root, sourceId, name) : null;
	const base = opened ? await SourceLexicon.fromTransfer(opened.transfer) : null;
	try {
		if (condition && !(await foldIsDue(client, sourceId, base?.versions ?? null, condition))) {
			return base && name ? { name, chunks: base.size, written: false } : null;
		}
		const written = base
			? await foldInto(client, pagesOf, root, sourceId, base, limits, columns)
			: await buildLexiconFile(root, sourceId, pagesOf<LexicalChunkRow>(client, lexicalChunkRowsSql("all"), [sourceId]), limits, columns);
		return { ...written, written: true };
	} finally {
		// Opened here, held by nothing else: its descriptor is not left for a collection to close.
		base?.closeFile();
	}
}

/** The generation in pieces, or null when it cannot be read (cut short, another format): the source is then built anew. */
function readableLexiconFile(root: string, sourceId: string, name: string): ReturnType<typeof readLexiconFile> {
	try {
		return readLexiconFile(root, sourceId, { name, inPieces: true });
	} catch {
		return null;
	}
}

async function foldInto(
	client: pg.Client,
	pagesOf: PageReader,
	root: string,
	sourceId: string,
	base: SourceLexicon,
	limits?: LexiconBuildLimits,
	columns?: FileColumnThresholds,
): Promise<{ name: string; chunks: number }> {
	let toRead: string[] = [];
	let removed = new Set<string>();
	const readDocuments = async (connection: pg.Client) => {
		const changes = versionChanges(base.versions, await readyDocumentVersions(connection, sourceId));
		toRead = changes.changed;
		removed = new Set(changes.removed);
	};
	return buildLexiconFileWith(
		root,
		sourceId,
		async (lexicon, spillIfDue) => {
			const pages = pagesOf<LexicalChunkRow>(client, lexicalChunkRowsSql("some"), () => [sourceId, toRead], readDocuments);
			// The first page comes after the snapshot's versions: what is kept of the base is known.
			const first = await pages.next();
			await lexicon.copyChunksOf(base, (documentId) => !removed.has(documentId), spillIfDue);
			if (!first.done) lexicon.addRows(first.value);
			for await (const rows of pages) {
				lexicon.addRows(rows);
				spillIfDue();
			}
		},
		limits,
		columns,
	);
}
