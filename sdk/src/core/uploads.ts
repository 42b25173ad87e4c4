/**
 * What the upload methods accept, and `toFile` to turn any of it into a File (after openai-node's
 * core/uploads.ts). Nothing here imports Node: a `fs.ReadStream` is recognised by its shape (an
 * async iterable of bytes with a `path`), and reading a file by its path lives in the separate
 * `/node` entry (src/node.ts), so browser bundles never meet `node:fs`.
 */
import { PlatformError } from "../errors.js";

/** Bytes in any of the usual forms; a string is encoded as UTF-8. */
export type FileContent = string | ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

/** `fs.createReadStream(path)` (Node), by shape: its name comes from `path`. */
export interface FsReadStream extends AsyncIterable<unknown> {
	path: string | { toString(): string };
}

/** A File, or a Blob with a `name` (what browsers' file inputs and `fs.openAsBlob` give). */
export interface FileLike extends Blob {
	readonly name: string;
}

/** Bytes with their name: `{ filename, content, contentType? }`. */
export interface FileUpload {
	filename: string;
	content: FileContent;
	/** Derived from the filename's extension when omitted. */
	contentType?: string;
}

/** Everything the upload methods take. */
export type Uploadable = FileLike | FsReadStream | FileUpload;

/** Canonical content type per supported extension (spec, Knowledge, rule 1); the server has the last word. */
const CONTENT_TYPES: Record<string, string> = {
	pdf: "application/pdf",
	txt: "text/plain",
	md: "text/markdown",
	markdown: "text/markdown",
	html: "text/html",
	htm: "text/html",
	csv: "text/csv",
	json: "application/json",
	docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

export function contentTypeFor(filename: string): string | undefined {
	const extension = filename.includes(".") ? filename.slice(filename.lastIndexOf(".") + 1).toLowerCase() : "";
	return CONTENT_TYPES[extension];
}

function isFileLike(value: unknown): value is FileLike {
	return typeof Blob !== "undefined" && value instanceof Blob && typeof (value as { name?: unknown }).name === "string";
}

function isFsReadStream(value: unknown): value is FsReadStream {
	return typeof value === "object" && value !== null && "path" in value && Symbol.asyncIterator in value;
}

function basename(path: string): string {
	return path.split(/[\\/]/).pop() ?? path;
}

/** What File's constructor takes, declared here because Node's types have no global BlobPart. */
type BlobPart = string | Blob | Uint8Array<ArrayBuffer>;

/** Bytes as a BlobPart: typed arrays over a SharedArrayBuffer, or views of part of a buffer, are copied. */
function toBlobPart(chunk: unknown): BlobPart {
	if (typeof chunk === "string" || chunk instanceof Blob) return chunk;
	if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
	if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength).slice();
	throw new PlatformError(`Cannot upload a chunk of type ${typeof chunk}; expected bytes or text.`);
}

async function toBlobParts(content: FileContent | FsReadStream): Promise<BlobPart[]> {
	if (typeof content === "string" || content instanceof Blob || content instanceof ArrayBuffer || ArrayBuffer.isView(content)) return [toBlobPart(content)];
	const parts: BlobPart[] = [];
	if (typeof ReadableStream !== "undefined" && content instanceof ReadableStream) {
		const reader = content.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			parts.push(toBlobPart(value));
		}
		return parts;
	}
	for await (const chunk of content as AsyncIterable<unknown>) parts.push(toBlobPart(chunk));
	return parts;
}

/**
 * A File from bytes in any form: a string, ArrayBuffer, typed array (Buffer), Blob, ReadableStream,
 * async iterable or `fs.ReadStream`. `filename` may be left out when the value has a name of its
 * own (a File, a ReadStream's path); `contentType` defaults to the one of the filename's extension.
 */
export async function toFile(value: FileContent | FsReadStream | FileLike, filename?: string, options: { contentType?: string } = {}): Promise<File> {
	const name = filename ?? (isFileLike(value) ? value.name : isFsReadStream(value) ? basename(String(value.path)) : undefined);
	if (!name) throw new PlatformError("toFile needs a filename for content that has no name of its own.");
	const type = options.contentType ?? (value instanceof Blob && value.type ? value.type : contentTypeFor(name)) ?? "";
	if (isFileLike(value) && value instanceof File && value.name === name && value.type === type) return value;
	return new File(await toBlobParts(value), name, { type });
}

/** Any Uploadable as a File with a content type; throws when none can be told. */
export async function resolveUpload(upload: Uploadable): Promise<File> {
	const file = isFileLike(upload) || isFsReadStream(upload) ? await toFile(upload) : await toFile(upload.content, upload.filename, { contentType: upload.contentType });
	if (!file.type) throw new PlatformError(`Cannot tell the content type of ${JSON.stringify(file.name)}; pass contentType.`);
	return file;
}

/** Base64 without Buffer, so that it runs everywhere; chunked to stay within argument limits. */
export function toBase64(bytes: Uint8Array): string {
	let binary = "";
	const chunkSize = 0x8000;
	for (let offset = 0; offset < bytes.length; offset += chunkSize) {
		binary += String.fromCharCode(...bytes.subarray(offset, offset + chunkSize));
	}
	return btoa(binary);
}
