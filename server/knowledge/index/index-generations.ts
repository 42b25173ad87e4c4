import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * Generations of a source's index files in a directory of KNOWLEDGE_INDEX_DIR (the HNSW graph's,
 * vector-index-files.ts; the lexicon's, lexicon-files.ts): each generation named
 * `<number>-<random>`, so two processes writing at once never mix files, and `current` naming the
 * newest complete one (replaced by rename, so atomic). Files of other generations are removed
 * only once they are old enough that no process can still be opening them.
 */

/** A source's lexicon files (lexicon-files.ts). */
export const sourceLexiconDirectory = (root: string, sourceId: string) => join(root, "lexicon", sourceId);

/** Writes `bytes` to `path` through a temporary file and a rename: readers see the old file or the whole new one. */
export function writeAtomically(path: string, bytes: Uint8Array | string): void {
	const temporary = temporaryPath(path);
	writeFileSync(temporary, bytes);
	syncAndRename(temporary, path);
}

/** A name beside `path` that no other process or write uses. */
export function temporaryPath(path: string): string {
	return `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
}

/** Flushes a written temporary file to disk, then moves it into place. */
export function syncAndRename(temporary: string, path: string): void {
	const descriptor = openSync(temporary, "r");
	try {
		fsyncSync(descriptor);
	} finally {
		closeSync(descriptor);
	}
	renameSync(temporary, path);
}

export function currentGeneration(directory: string): string | null {
	try {
		return readFileSync(join(directory, "current"), "utf8").trim() || null;
	} catch {
		return null;
	}
}

export function newGenerationName(previous: string | null): string {
	const number = previous ? Number(previous.split("-")[0]) + 1 : 1;
	return `${number}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Makes `name` the current generation. */
export function publishGeneration(directory: string, name: string): void {
	writeAtomically(join(directory, "current"), name);
}

/** A file is only removed a while after it left the current generation: another process may still be opening it. */
const KEEP_UNREFERENCED_MS = 10 * 60_000;

/** Removes the files of the directory other than `current` and `used` once old enough. */
export function removeOldGenerations(directory: string, used: Iterable<string>): void {
	const kept = new Set(["current", ...used]);
	for (const file of readdirSync(directory)) {
		if (kept.has(file)) continue;
		try {
			if (Date.now() - statSync(join(directory, file)).mtimeMs > KEEP_UNREFERENCED_MS) rmSync(join(directory, file), { force: true });
		} catch {
			// Removed by another process meanwhile.
		}
	}
}

/** Reads `bytes.length` bytes at `position` of an index file, however many reads it takes; a file shorter than that is an error. */
export { readFully } from "../../shared/positional-reads";

/** Writes all of `bytes` at `position` of an index file, however many writes it takes. */
export function writeFully(descriptor: number, bytes: Uint8Array, position: number): void {
	for (let written = 0; written < bytes.length; ) written += writeSync(descriptor, bytes, written, bytes.length - written, position + written);
}
