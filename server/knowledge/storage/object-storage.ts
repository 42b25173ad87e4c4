import type { Readable } from "node:stream";

/** Where a client PUTs a document's bytes without an API key (spec, presigned flow step b). */
export interface UploadTarget {
	url: string;
	headers: Record<string, string>;
	expiresAt: Date;
}

/**
 * Persistence of document bytes behind one interface, so the local-disk default and an
 * S3-compatible store are interchangeable. Keys are opaque slash-separated paths we generate.
 */
export interface ObjectStorage {
	put(key: string, bytes: Buffer, contentType: string): Promise<void>;
	get(key: string): Promise<Buffer>;
	/** Size of the stored object, or null when nothing is stored under the key. */
	size(key: string): Promise<number | null>;
	delete(key: string): Promise<void>;
	/** Removes every object whose key starts with the prefix (a whole source on deletion). */
	deletePrefix(prefix: string): Promise<void>;
	createUploadTarget(input: { key: string; contentType: string; byteSize: number; expiresInSeconds: number }): Promise<UploadTarget>;
	/** Releases connections (an SDK client's sockets); after the last job has finished. */
	close?(): void;
}

/** Stores that serve their presigned URLs themselves (this server's PUT /uploads/:token). */
export interface SelfServedUploads {
	/** Writes the stream under the key, once: fails with `exists` when an object is already there. */
	putOnce(key: string, body: Readable, expectedBytes: number): Promise<"stored" | "exists" | "size-mismatch">;
}

export function documentStorageKey(workspaceId: string, sourceId: string, documentId: string): string {
	return `${sourceStoragePrefix(workspaceId, sourceId)}${documentId}`;
}

export function sourceStoragePrefix(workspaceId: string, sourceId: string): string {
	return `workspaces/${workspaceId}/sources/${sourceId}/`;
}
