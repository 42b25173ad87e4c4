import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { link, mkdir, readFile, rm, stat, unlink, writeFile, rename } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ObjectStorage, SelfServedUploads, UploadTarget } from "./object-storage";
import type { UploadTokenSigner } from "./upload-token";

/**
 * The default store: files under DATA_DIR/objects. Presigned URLs point at this server's
 * PUT /uploads/:token, signed with a SECRET_KEY-derived HMAC, so no object store is needed.
 */
export class LocalDiskStorage implements ObjectStorage, SelfServedUploads {
	private readonly root: string;

	constructor(
		root: string,
		private readonly signer: UploadTokenSigner,
		private readonly publicBaseUrl: () => string,
	) {
		this.root = resolve(root);
	}

	/** Keys are ours, but a key must never escape the root whatever it contains. */
	private pathOf(key: string): string {
		const path = resolve(this.root, key);
		if (!path.startsWith(this.root + sep)) throw new Error(`Storage key escapes the root: ${key}`);
		return path;
	}

	async put(key: string, bytes: Buffer): Promise<void> {
		const path = this.pathOf(key);
		await mkdir(dirname(path), { recursive: true });
		// Write then rename: a reader never sees a half-written file.
		const temporary = `${path}.${randomBytes(6).toString("hex")}.partial`;
		await writeFile(temporary, bytes);
		await rename(temporary, path);
	}

	async get(key: string): Promise<Buffer> {
		return readFile(this.pathOf(key));
	}

	async size(key: string): Promise<number | null> {
		try {
			return (await stat(this.pathOf(key))).size;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
			throw error;
		}
	}

	async delete(key: string): Promise<void> {
		await rm(this.pathOf(key), { force: true });
	}

	async deletePrefix(prefix: string): Promise<void> {
		const path = this.pathOf(prefix.replace(/\/+$/, ""));
		await rm(path, { recursive: true, force: true });
	}

	async createUploadTarget(input: { key: string; contentType: string; byteSize: number; expiresInSeconds: number }): Promise<UploadTarget> {
		const expiresAt = new Date(Math.floor(Date.now() / 1000 + input.expiresInSeconds) * 1000);
		const token = this.signer.sign({ key: input.key, contentType: input.contentType, byteSize: input.byteSize, expiresAt: expiresAt.getTime() / 1000 });
		return {
			url: `${this.publicBaseUrl()}/uploads/${token}`,
			headers: { "Content-Type": input.contentType, "Content-Length": String(input.byteSize) },
			expiresAt,
		};
	}

	async putOnce(key: string, body: Readable, expectedBytes: number): Promise<"stored" | "exists" | "size-mismatch"> {
		const path = this.pathOf(key);
		await mkdir(dirname(path), { recursive: true });
		if ((await this.size(key)) !== null) return "exists";
		const temporary = `${path}.${randomBytes(6).toString("hex")}.partial`;
		let received = 0;
		body.on("data", (chunk: Buffer) => {
			received += chunk.length;
		});
		try {
			await pipeline(body, createWriteStream(temporary, { flags: "wx" }));
			if (received !== expectedBytes) return "size-mismatch";
			// link() fails with EEXIST when a concurrent PUT won: exactly one upload is ever accepted.
			try {
				await link(temporary, path);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
				throw error;
			}
			return "stored";
		} finally {
			await unlink(temporary).catch(() => {});
		}
	}
}

export function objectsDirectory(dataDirectory: string): string {
	return join(dataDirectory, "objects");
}
