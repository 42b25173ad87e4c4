import { crc32, inflateRawSync } from "node:zlib";
import { IngestionError } from "./parsed-document";

/** One member of a ZIP archive as its central directory describes it (APPNOTE 4.3.12). */
export interface ZipEntry {
	name: string;
	/** 0 stored, 8 deflated; nothing else occurs in Office files. */
	method: number;
	compressedSize: number;
	/** The uncompressed size the archive declares; checked against the budget before inflating, and not trusted after. */
	declaredSize: number;
	localHeaderOffset: number;
	encrypted: boolean;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const END_RECORD_SEARCH = 22 + 0xffff;

/** A ZIP that cannot be read; `kind` names the container in the reason ("DOCX"). */
function corrupt(kind: string, detail: string): IngestionError {
	return new IngestionError(`The ${kind} file could not be read; it may be corrupt (${detail})`);
}

/**
 * The central directory, read without inflating anything. ZIP64 (sizes past 4 GB) is refused: no
 * Office document needs it, and its sizes live in extra fields a bomb would use to hide them.
 */
export function readCentralDirectory(bytes: Buffer, kind: string, maxEntries: number): ZipEntry[] {
	let end = -1;
	for (let offset = bytes.length - 22; offset >= Math.max(0, bytes.length - END_RECORD_SEARCH); offset--) {
		if (bytes.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) {
			end = offset;
			break;
		}
	}
	if (end < 0) throw corrupt(kind, "not a ZIP archive");
	const count = bytes.readUInt16LE(end + 10);
	const directorySize = bytes.readUInt32LE(end + 12);
	const directoryOffset = bytes.readUInt32LE(end + 16);
	if (count === 0xffff || directoryOffset === 0xffffffff) throw corrupt(kind, "ZIP64 archives are not supported");
	if (count > maxEntries) throw new IngestionError(`The ${kind} file has more than ${maxEntries} parts`);
	if (directoryOffset + directorySize > end) throw corrupt(kind, "the central directory lies outside the file");
	const entries: ZipEntry[] = [];
	let offset = directoryOffset;
	for (let index = 0; index < count; index++) {
		if (offset + 46 > end || bytes.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) throw corrupt(kind, "a central directory entry is malformed");
		const nameLength = bytes.readUInt16LE(offset + 28);
		const extraLength = bytes.readUInt16LE(offset + 30);
		const commentLength = bytes.readUInt16LE(offset + 32);
		const entry: ZipEntry = {
			name: bytes.toString("utf8", offset + 46, offset + 46 + nameLength),
			method: bytes.readUInt16LE(offset + 10),
			compressedSize: bytes.readUInt32LE(offset + 20),
			declaredSize: bytes.readUInt32LE(offset + 24),
			localHeaderOffset: bytes.readUInt32LE(offset + 42),
			encrypted: (bytes.readUInt16LE(offset + 8) & 1) === 1,
		};
		if (entry.compressedSize === 0xffffffff || entry.declaredSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff) {
			throw corrupt(kind, "ZIP64 archives are not supported");
		}
		entries.push(entry);
		offset += 46 + nameLength + extraLength + commentLength;
	}
	return entries;
}

/**
 * The entry's bytes, inflated by zlib with `maxOutputLength`: zlib inflates piece by piece and
 * stops as soon as the output passes the limit, so a member that lies about its size is caught
 * after at most `limit` bytes, never after inflating all of it. Returns null past the limit.
 */
export function inflateEntry(bytes: Buffer, entry: ZipEntry, limit: number, kind: string): Buffer | null {
	const header = entry.localHeaderOffset;
	if (header + 30 > bytes.length || bytes.readUInt32LE(header) !== LOCAL_FILE_HEADER) throw corrupt(kind, `the header of ${entry.name} is missing`);
	const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
	if (start + entry.compressedSize > bytes.length) throw corrupt(kind, `${entry.name} is cut short`);
	const data = bytes.subarray(start, start + entry.compressedSize);
	if (entry.encrypted) throw new IngestionError(`The ${kind} file is encrypted`);
	if (entry.method === 0) return data.length > limit ? null : data;
	if (entry.method !== 8) throw corrupt(kind, `${entry.name} uses compression method ${entry.method}`);
	if (limit <= 0) return null;
	try {
		return inflateRawSync(data, { maxOutputLength: limit });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return null;
		throw corrupt(kind, `${entry.name} does not inflate: ${(error as Error).message}`);
	}
}

/** A ZIP of stored (uncompressed) members: what a reader gets after the checks, with nothing left to inflate. */
export function writeStoredZip(members: { name: string; data: Buffer }[]): Buffer {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const member of members) {
		const name = Buffer.from(member.name, "utf8");
		const checksum = crc32(member.data);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(LOCAL_FILE_HEADER, 0);
		local.writeUInt16LE(20, 4);
		local.writeUInt16LE(0x0800, 6); // UTF-8 names
		local.writeUInt32LE(checksum, 14);
		local.writeUInt32LE(member.data.length, 18);
		local.writeUInt32LE(member.data.length, 22);
		local.writeUInt16LE(name.length, 26);
		const central = Buffer.alloc(46);
		central.writeUInt32LE(CENTRAL_DIRECTORY_ENTRY, 0);
		central.writeUInt16LE(20, 4);
		central.writeUInt16LE(20, 6);
		central.writeUInt16LE(0x0800, 8);
		central.writeUInt32LE(checksum, 16);
		central.writeUInt32LE(member.data.length, 20);
		central.writeUInt32LE(member.data.length, 24);
		central.writeUInt16LE(name.length, 28);
		central.writeUInt32LE(offset, 42);
		locals.push(local, name, member.data);
		centrals.push(central, name);
		offset += 30 + name.length + member.data.length;
	}
	const directorySize = centrals.reduce((sum, part) => sum + part.length, 0);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
	end.writeUInt16LE(members.length, 8);
	end.writeUInt16LE(members.length, 10);
	end.writeUInt32LE(directorySize, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...locals, ...centrals, end]);
}
