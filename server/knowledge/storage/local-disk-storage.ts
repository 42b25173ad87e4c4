import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { chmod, link, mkdir, readFile, rm, stat, unlink, writeFile, rename } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ObjectStorage, SelfServedUploads, UploadTarget } from "./object-storage";
import type { UploadTokenSigner } from "./upload-token";

/** Documents are tenants' data: readable by this service's user only, whatever the umask. */
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;

/**
 * The default store: files under DATA_DIR/objects. Presigned URLs point at this server's
 * PUT /uploads/:token, signed with a SECRET_KEY-derived HMAC, so no object store is needed.
 */
export class LocalDiskStorage implements ObjectStorage, SelfServedUploads {
	private readonly root: string;
	private rootReady = false;

	constructor(
		root: string,
		private readonly signer: UploadTokenSigner,
		private readonly publicBaseUrl: () => string,
	) {
		this.root = resolve(root);
	}

	/**
	 * The object's directory, created owner-only. The root is also closed to others when it
	 * already existed, so files an older version stored world-readable are out of reach too.
	 */
	private async prepareDirectoryOf(path: string): Promise<void> {
		if (!this.rootReady) {
			// Only the root is made owner-only: its parent (DATA_DIR) may be traversed by the embedded PostgreSQL's user.
			await mkdir(dirname(this.root), { recursive: true });
			await mkdir(this.root, { recursive: true, mode: DIRECTORY_MODE });
			await chmod(this.root, DIRECTORY_MODE);
			this.rootReady = true;
		}
		await mkdir(dirname(path), { recursive: true, mode: DIRECTORY_MODE });
	}

	/** Keys are ours, but a key must never escape the root whatever it contains. */
	private pathOf(key: string): string {
		const path = resolve(this.root, key);
		if (!path.startsWith(this.root + sep)) throw new Error(`Storage key escapes the root: ${key}`);
		return path;
	}

	async put(key: string, bytes: Buffer): Promise<void> {
		const path = this.pathOf(key);
		await this.prepareDirectoryOf(path);
		// Write then rename: a reader never sees a half-written file.
		const temporary = `${path}.${randomBytes(6).toString("hex")}.partial`;
		await writeFile(temporary, bytes, { mode: FILE_MODE });
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
		await this.prepareDirectoryOf(path);
		if ((await this.size(key)) !== null) return "exists";
		const temporary = `${path}.${randomBytes(6).toString("hex")}.partial`;
		let received = 0;
		body.on("data", (chunk: Buffer) => {
			received += chunk.length;
		});
		try {
			await pipeline(body, createWriteStream(temporary, { flags: "wx", mode: FILE_MODE }));
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
