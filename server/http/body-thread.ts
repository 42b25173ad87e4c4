import { Worker } from "node:worker_threads";
import { AnsweringThread } from "../shared/answering-thread";
import { AppError } from "../shared/app-error";
import { threadEntry } from "../shared/thread-entry";
import type { DecodedBase64Field } from "./middleware/json-body";

export interface BodyRequest {
	id: number;
	/** The body's bytes, moved to the thread. */
	bytes: ArrayBuffer;
	field: string;
}

export type BodyReply =
	| { id: number; value: unknown; decoded?: { field: string; bytes: ArrayBuffer | null; sha256: string } }
	/** Not JSON (or not an object or array at the top): the message the client gets. */
	| { id: number; invalid: string };

/**
 * `bytes` as an ArrayBuffer that may be moved to another thread: its own when it spans all of it,
 * else a copy. Never the buffer under a slice: small Buffers share Node's allocation pool, and
 * moving that would take it from every other Buffer on this thread.
 */
export function movableCopyOf(bytes: Buffer): ArrayBuffer {
	if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
	const copy = new Uint8Array(bytes.byteLength);
	copy.set(bytes);
	return copy.buffer;
}

/** The thread's heap: a direct upload's body (about 7 MB of JSON) parsed, its text and its bytes, with room to spare. */
const THREAD_HEAP_MEGABYTES = 256;

/**
 * One thread that parses the bodies of routes carrying a file as base64 (a direct upload: up to
 * 5 MiB of file, 7 MB of JSON) and decodes that field. On the API's event loop, turning a megabyte
 * of body into text, parsing it, and decoding and checking its base64 took 25-35 ms (150 ms and
 * more for 5 MiB on a busy machine): every request of every tenant waited behind each upload.
 * Here the loop only moves the body's bytes to the thread and takes back the parsed fields and the
 * file's bytes, both moved, not copied. Bodies queue in order on the one thread. It is started
 * with the first such body and again if it ever dies; idle, it keeps no process alive.
 */
export class BodyThread {
	private readonly entry = threadEntry(import.meta.url, "body-thread-entry.ts", "body-thread");
	private readonly thread = new AnsweringThread<BodyRequest, BodyReply>({
		name: "The body thread",
		spawn: () => new Worker(this.entry.code, { eval: this.entry.eval, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MEGABYTES } }),
		idOf: (reply) => reply.id,
	});

	/** The JSON in `bytes`, with the string at `field` decoded from base64 and replaced by "" (see parseJsonBodyDecodingBase64). */
	async parseDecodingBase64(bytes: Buffer, field: string): Promise<{ value: unknown; decoded?: DecodedBase64Field }> {
		const moved = movableCopyOf(bytes);
		const reply = await this.thread.ask((id) => ({ id, bytes: moved, field }), [moved]);
		if ("invalid" in reply) throw new AppError("INVALID_REQUEST", reply.invalid);
		const decoded = reply.decoded && { field: reply.decoded.field, bytes: reply.decoded.bytes && Buffer.from(reply.decoded.bytes), sha256: reply.decoded.sha256 };
		return { value: reply.value, decoded };
	}

	close(): Promise<void> {
		return this.thread.close();
	}
}
