/**
 * Node-only helpers (`import { fileFromPath } from "@ai-app-platform/sdk/node"`), kept out of the
 * main entry so that browser bundles never meet `node:fs`.
 */
import { openAsBlob } from "node:fs";
import { basename } from "node:path";
import { contentTypeFor } from "./core/uploads.js";

/**
 * A File over the file at `path`, read lazily when uploaded (`fs.openAsBlob`, Node 19.8+). Its name
 * is the path's last segment and its type that of the extension unless `contentType` is given.
 */
export async function fileFromPath(path: string, options: { filename?: string; contentType?: string } = {}): Promise<File> {
	const filename = options.filename ?? basename(path);
	const type = options.contentType ?? contentTypeFor(filename) ?? "";
	const blob = await openAsBlob(path, { type });
	return new File([blob], filename, { type });
}
