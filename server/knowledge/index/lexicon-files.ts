import { closeSync, fstatSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { currentGeneration, newGenerationName, publishGeneration, readFully, removeOldGenerations, sourceLexiconDirectory, syncAndRename, temporaryPath, writeFully } from "./index-generations";
import type { LexiconTransfer } from "./lexical-index";
import { ARRAYS_LEFT_ON_DISK, type ArrayLeftOnDisk, type LexiconPiecesLocation } from "./lexicon-pieces";
import type { PackedStrings } from "./thread-transfer";

/**
 * The on-disk form of a source's lexicon (KNOWLEDGE_INDEX_DIR/lexicon/<source>/): generations
 * (index-generations.ts), each one file `<name>.lexicon` holding a built lexicon exactly as it
 * moves between threads (LexiconTransfer): a little-endian u32 header length, a JSON header (the
 * numbers, the string counts, where each array is), then each array's bytes at an 8-byte
 * boundary. Opening one is reading those arrays straight into their own buffers on a builder
 * thread (no parsing, no PostgreSQL), so a restart's first search of a million-chunk source does
 * not rebuild it from tsvector text (minutes); opened in pieces, the postings and pairs are left
 * in the file for the API's thread to read as searches need them (lexicon-pieces.ts). Written and
 * read whole on index-builder threads only.
 */

const lexiconPath = (directory: string, name: string) => join(directory, `${name}.lexicon`);

/**
 * Bumped when the layout or the lexicon's arrays change: a file of another format is not opened
 * (the source loads from PostgreSQL and writes a new one). 2: the frequent words' columns.
 */
const FORMAT = 2;

const ARRAY_TYPES = { Int32Array, Uint32Array, Uint8Array, Float32Array } as const;
export type ArrayTypeName = keyof typeof ARRAY_TYPES;

interface LexiconFileHeader {
	format: number;
	numbers: Record<string, number>;
	/** Packed string fields: their string counts (their bytes are an array part of the same name). */
	strings: Record<string, number>;
	arrays: { field: string; type: ArrayTypeName; offset: number; length: number }[];
}

const isPackedStrings = (value: unknown): value is PackedStrings => typeof value === "object" && value !== null && "count" in value && "bytes" in value;

/**
 * Arrays of a lexicon file written by the file's builder rather than taken from memory (a build
 * that keeps its pairs and postings on disk, lexicon-build.ts): their types and lengths place them
 * in the file; `write` then writes them at their offsets.
 */
export interface DeferredArrays {
	arrays: { field: keyof LexiconTransfer; type: ArrayTypeName; length: number }[];
	write(descriptor: number, offsetOf: (field: keyof LexiconTransfer) => number): void;
}

/** Writes `transfer` (its fields in `deferred` written by `deferred.write` instead) as a new generation and makes it current; returns its name. */
export function writeLexiconFile(root: string, sourceId: string, transfer: LexiconTransfer, deferred?: DeferredArrays): string {
	const directory = sourceLexiconDirectory(root, sourceId);
	mkdirSync(directory, { recursive: true });
	const name = newGenerationName(currentGeneration(directory));
	const header: LexiconFileHeader = { format: FORMAT, numbers: {}, strings: {}, arrays: [] };
	const parts: (ArrayBufferView | null)[] = [];
	const place = (field: string, array: ArrayBufferView & { length: number }) => {
		const type = array.constructor.name as ArrayTypeName;
		if (!(type in ARRAY_TYPES)) throw new Error(`A lexicon array of type ${type} has no file form`);
		header.arrays.push({ field, type, offset: 0, length: array.length });
		parts.push(array);
	};
	const deferredFields = new Map(deferred?.arrays.map((array) => [array.field as string, array]));
	for (const [field, value] of Object.entries(transfer)) {
		const later = deferredFields.get(field);
		if (later) {
			header.arrays.push({ field, type: later.type, offset: 0, length: later.length });
			parts.push(null);
		} else if (typeof value === "number") header.numbers[field] = value;
		else if (isPackedStrings(value)) {
			header.strings[field] = value.count;
			place(field, value.bytes);
		} else if (ArrayBuffer.isView(value)) place(field, value as ArrayBufferView & { length: number });
	}
	const byteLength = (index: number) => parts[index]?.byteLength ?? header.arrays[index].length * ARRAY_TYPES[header.arrays[index].type].BYTES_PER_ELEMENT;
	// Offsets depend on the header's length, which depends on the offsets' digits: settle them in two passes.
	let headerBytes = Buffer.alloc(0);
	for (let pass = 0; pass < 3; pass++) {
		let offset = align(4 + headerBytes.length + 64);
		for (const [index, entry] of header.arrays.entries()) {
			entry.offset = offset;
			offset = align(offset + byteLength(index));
		}
		headerBytes = Buffer.from(JSON.stringify(header));
	}
	if (4 + headerBytes.length > header.arrays[0].offset) throw new Error("The lexicon file's header outgrew its room");
	const path = lexiconPath(directory, name);
	const temporary = temporaryPath(path);
	const descriptor = openSync(temporary, "w");
	try {
		const prefix = Buffer.alloc(4);
		prefix.writeUInt32LE(headerBytes.length);
		writeSync(descriptor, prefix, 0, 4, 0);
		writeSync(descriptor, headerBytes, 0, headerBytes.length, 4);
		for (const [index, entry] of header.arrays.entries()) {
			const part = parts[index];
			if (part) writeFully(descriptor, new Uint8Array(part.buffer, part.byteOffset, part.byteLength), entry.offset);
		}
		deferred?.write(descriptor, (field) => {
			const entry = header.arrays.find((array) => array.field === field);
			if (!entry) throw new Error(`The lexicon file has no array ${field}`);
			return entry.offset;
		});
	} catch (error) {
		closeSync(descriptor);
		rmSync(temporary, { force: true });
		throw error;
	}
	closeSync(descriptor);
	syncAndRename(temporary, path);
	publishGeneration(directory, name);
	removeOldGenerations(directory, [`${name}.lexicon`]);
	return name;
}

/**
 * A generation of the source's lexicon file (the current one unless `name` is given) read into
 * arrays of their own (`buffers`, to transfer); null when there is none (or of another format).
 * `inPieces`: the postings and pairs stay on disk (lexicon-pieces.ts) and the transfer says where.
 */
export function readLexiconFile(root: string, sourceId: string, options: { name?: string; inPieces?: boolean } = {}): { transfer: LexiconTransfer; buffers: ArrayBuffer[] } | null {
	const directory = sourceLexiconDirectory(root, sourceId);
	const name = options.name ?? currentGeneration(directory);
	if (!name) return null;
	const path = lexiconPath(directory, name);
	const descriptor = openSync(path, "r");
	try {
		const prefix = Buffer.alloc(4);
		readFully(descriptor, prefix, 0);
		const headerBytes = Buffer.alloc(prefix.readUInt32LE(0));
		readFully(descriptor, headerBytes, 4);
		const header = JSON.parse(headerBytes.toString("utf8")) as LexiconFileHeader;
		if (header.format !== FORMAT) return null;
		// A file cut short is not trusted, even where a lexicon in pieces would read only its beginning.
		// (An empty array's offset may lie past the last byte: the alignment after the one before it.)
		const end = Math.max(0, ...header.arrays.filter((entry) => entry.length > 0).map((entry) => entry.offset + entry.length * ARRAY_TYPES[entry.type].BYTES_PER_ELEMENT));
		if (fstatSync(descriptor).size < end) throw new Error("A lexicon file ended early");
		const transfer: Record<string, unknown> = { ...header.numbers };
		const buffers: ArrayBuffer[] = [];
		const offsets: Partial<Record<ArrayLeftOnDisk, number>> = {};
		for (const entry of header.arrays) {
			if (!options.inPieces && (entry.field === "columns" || entry.field === "columnTerms")) {
				// The columns are hundreds of megabytes at a million chunks, for a lexicon that can make those it uses itself.
				transfer[entry.field] = new ARRAY_TYPES[entry.type](0);
				continue;
			}
			if (options.inPieces && (ARRAYS_LEFT_ON_DISK as readonly string[]).includes(entry.field)) {
				offsets[entry.field as ArrayLeftOnDisk] = entry.offset;
				const empty = new ARRAY_TYPES[entry.type](0);
				transfer[entry.field] = entry.field in header.strings ? { count: header.strings[entry.field], bytes: empty } : empty;
				continue;
			}
			// Each array in a buffer of its own: transferable to the API's thread without a copy.
			const array = new ARRAY_TYPES[entry.type](entry.length);
			readFully(descriptor, new Uint8Array(array.buffer), entry.offset);
			buffers.push(array.buffer);
			transfer[entry.field] = entry.field in header.strings ? { count: header.strings[entry.field], bytes: array } : array;
		}
		if (options.inPieces) {
			if (ARRAYS_LEFT_ON_DISK.some((field) => offsets[field] === undefined)) return null;
			transfer.pieces = { path, offsets: offsets as Record<ArrayLeftOnDisk, number> } satisfies LexiconPiecesLocation;
		}
		return { transfer: transfer as unknown as LexiconTransfer, buffers };
	} finally {
		closeSync(descriptor);
	}
}

const align = (offset: number) => Math.ceil(offset / 8) * 8;
