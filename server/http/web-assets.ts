import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { KnowledgeOptions } from "../knowledge/options";
import type { Logger } from "../shared/logger";
import type { RawRoute } from "./raw-route";

/** The dashboard's own pages (its client-side routes): each is answered with index.html. */
const PAGE_PREFIXES = ["/login", "/workspaces", "/organizations", "/account", "/invitations"] as const;

/** Hashed file names only (Vite's output): nothing else under /assets/ is served, no path can climb out. */
const ASSET_NAME = /^\/assets\/([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|map|svg|png|woff2|ico|json))$/;

const CONTENT_TYPES: Record<string, string> = {
	js: "text/javascript; charset=utf-8",
	css: "text/css; charset=utf-8",
	map: "application/json; charset=utf-8",
	json: "application/json; charset=utf-8",
	svg: "image/svg+xml",
	png: "image/png",
	woff2: "font/woff2",
	ico: "image/x-icon",
};

/**
 * What the dashboard's page may load and do: its own scripts only (no inline script, nothing from
 * elsewhere), calls to this origin and to where document uploads go (the presigned URL's origin:
 * the public address, or the S3 bucket), never framed. Styles allow inline for the component
 * library's positioning of menus and dialogs; no script can be injected through them.
 */
export function dashboardPageHeaders(uploadOrigins: readonly string[] = []): Record<string, string> {
	const connect = ["'self'", ...uploadOrigins].join(" ");
	return {
		"content-type": "text/html; charset=utf-8",
		"content-security-policy": `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src ${connect}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
		"x-frame-options": "DENY",
		"x-content-type-options": "nosniff",
		"referrer-policy": "same-origin",
		// Always asked again (it names the current hashed assets); a 304 costs one round trip.
		"cache-control": "no-cache",
	};
}


/** The origin a presigned upload URL points at, for the page's connect-src: the browser PUTs the bytes there. */
export function uploadOriginOf(storage: KnowledgeOptions["storage"], publicBaseUrl: string): string | undefined {
	try {
		if (storage.driver === "local") return new URL(publicBaseUrl).origin;
		if (storage.endpoint) return new URL(storage.endpoint).origin;
		return `https://${storage.bucket}.s3.${storage.region}.amazonaws.com`;
	} catch {
		return undefined;
	}
}

export function isDashboardPage(path: string): boolean {
	return path === "/" || PAGE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * The dashboard as built by `npm run build` into `directory` (dist/web): index.html for every page
 * path (the application routes in the browser), hashed assets cached for a year, each sent
 * precompressed (brotli or gzip) when the browser accepts it. Nothing is fetched or built at run time.
 */
export function dashboardRoutes(directory: string | undefined, logger: Logger, uploadOrigins: () => string[] = () => []): RawRoute[] {
	const indexCache: { html?: Buffer; etag?: string } = {};

	const sendIndex = async (request: IncomingMessage, response: ServerResponse) => {
		if (!indexCache.html && directory) {
			const html = await readFile(path.join(directory, "index.html")).catch(() => undefined);
			if (html) {
				indexCache.html = html;
				const sourceHash = await readFile(path.join(directory, ".source-hash"), "utf8").catch(() => String(html.length));
				indexCache.etag = `"${sourceHash.slice(0, 32)}"`;
			}
		}
		if (!indexCache.html) {
			response.writeHead(503, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
			response.end("The dashboard has not been built: run `npm run build` (npm start does), then reload.\n");
			return;
		}
		if (request.headers["if-none-match"] === indexCache.etag) {
			response.writeHead(304, { ...dashboardPageHeaders(uploadOrigins()), etag: indexCache.etag as string });
			response.end();
			return;
		}
		response.writeHead(200, { ...dashboardPageHeaders(uploadOrigins()), etag: indexCache.etag as string, "content-length": indexCache.html.length });
		response.end(request.method === "HEAD" ? undefined : indexCache.html);
	};

	const sendAsset = async (request: IncomingMessage, response: ServerResponse, name: string, extension: string) => {
		const file = path.join(directory ?? "", "assets", name);
		const accepted = String(request.headers["accept-encoding"] ?? "");
		for (const [encoding, suffix] of [
			["br", ".br"],
			["gzip", ".gz"],
			[undefined, ""],
		] as const) {
			if (encoding && !new RegExp(`\\b${encoding}\\b`).test(accepted)) continue;
			const info = await stat(`${file}${suffix}`).catch(() => undefined);
			if (!info?.isFile()) continue;
			response.writeHead(200, {
				"content-type": CONTENT_TYPES[extension],
				"content-length": info.size,
				"cache-control": "public, max-age=31536000, immutable",
				"x-content-type-options": "nosniff",
				vary: "Accept-Encoding",
				...(encoding ? { "content-encoding": encoding } : {}),
			});
			if (request.method === "HEAD") return void response.end();
			createReadStream(`${file}${suffix}`)
				.on("error", (error) => {
					logger.warn("dashboard asset could not be read", { file: name, error });
					response.destroy();
				})
				.pipe(response);
			return;
		}
		response.writeHead(404, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
		response.end("No such asset.\n");
	};

	const readable = (method: string) => method === "GET" || method === "HEAD";
	return [
		{
			name: "dashboard asset",
			matches: (path, method) => readable(method) && ASSET_NAME.test(path),
			errors: "envelope",
			handle: ({ request, response, path }) => {
				const asset = ASSET_NAME.exec(path) as RegExpExecArray;
				return sendAsset(request, response, asset[1], asset[2]);
			},
		},
		{
			name: "dashboard page",
			matches: (path, method) => readable(method) && isDashboardPage(path),
			errors: "page",
			handle: ({ request, response }) => sendIndex(request, response),
		},
	];
}
