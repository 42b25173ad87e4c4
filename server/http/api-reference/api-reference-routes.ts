import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { AppError } from "../../shared/app-error";
import type { RawRoute } from "../raw-route";

/**
 * The reference page's policy: scripts and styles from this server only (Swagger UI's bundle, read
 * from the installed swagger-ui-dist package, never a CDN), the document fetched from this origin,
 * never framed. Swagger UI sets style attributes, hence 'unsafe-inline' for styles only.
 */
export const API_REFERENCE_PAGE_CSP =
	"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/reference.css">
</head>
<body>
<main id="reference" aria-label="API reference"><noscript>The reference needs JavaScript; the document itself is at <a href="/openapi.yaml">/openapi.yaml</a>.</noscript></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/reference-init.js"></script>
</body>
</html>
`;

/** The page's one script of its own, served as a file: the CSP forbids inline scripts. */
const REFERENCE_INIT = `window.addEventListener("load", function () {
	window.ui = window.SwaggerUIBundle({
		url: "/openapi.json",
		dom_id: "#reference",
		deepLinking: true,
		presets: [window.SwaggerUIBundle.presets.apis],
		layout: "BaseLayout",
		tryItOutEnabled: false,
		defaultModelsExpandDepth: 0,
		onComplete: function () {
			// Swagger UI leaves its server picker without a name for screen readers.
			var servers = document.getElementById("servers");
			if (servers) servers.setAttribute("aria-label", "Server");
		},
	});
});
`;

/**
 * Swagger UI's colours where they miss WCAG AA contrast (method badges, version stamps, links),
 * darkened; loaded after its own stylesheet.
 */
const REFERENCE_CSS = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5f99; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #17693f; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a5300; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #186f63; }
.swagger-ui .info .title small { background: #4a4f55; }
.swagger-ui .info .title small.version-stamp { background: #2e6b20; }
.swagger-ui .info .title small pre { color: #fff; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.link, .swagger-ui .url { color: #1d4f91; }
.swagger-ui .btn span, .swagger-ui .btn { color: #1b1b1b; }
`;

interface Served {
	body: Buffer;
	contentType: string;
	etag: string;
}

/** Files of the reference, each read once on first request: the document (YAML and JSON), the page and its assets. */
interface Sources {
	/** openapi.yaml as committed (npm run generate). */
	openApiDocument: string;
}

const ASSETS: Readonly<Record<string, { read: () => Promise<Buffer | string>; contentType: string }>> = {
	"/docs/assets/swagger-ui-bundle.js": { read: () => readFile(swaggerUiFile("swagger-ui-bundle.js")), contentType: "text/javascript; charset=utf-8" },
	"/docs/assets/swagger-ui.css": { read: () => readFile(swaggerUiFile("swagger-ui.css")), contentType: "text/css; charset=utf-8" },
	"/docs/assets/reference-init.js": { read: async () => REFERENCE_INIT, contentType: "text/javascript; charset=utf-8" },
	"/docs/assets/reference.css": { read: async () => REFERENCE_CSS, contentType: "text/css; charset=utf-8" },
};

function swaggerUiFile(name: string): string {
	return path.join(path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")), name);
}

function served(body: Buffer | string, contentType: string): Served {
	const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
	return { body: buffer, contentType, etag: `"${createHash("sha256").update(buffer).digest("base64url").slice(0, 27)}"` };
}

function send(request: IncomingMessage, response: ServerResponse, file: Served, headers: Record<string, string>): void {
	if (request.headers["if-none-match"] === file.etag) {
		response.writeHead(304, { etag: file.etag, ...headers });
		response.end();
		return;
	}
	response.writeHead(200, { "content-type": file.contentType, "content-length": String(file.body.length), etag: file.etag, "x-content-type-options": "nosniff", ...headers });
	response.end(request.method === "HEAD" ? undefined : file.body);
}

/**
 * GET /openapi.yaml and /openapi.json (the contract's document, as generated and committed), and
 * /docs, a reference page rendered from it by Swagger UI's static bundle. Public, like the
 * document in the repository: it describes the API, never an installation's data.
 */
export function apiReferenceRoutes(sources: Sources): RawRoute[] {
	const cache = new Map<string, Promise<Served>>();
	const load = (key: string, read: () => Promise<Served>): Promise<Served> => {
		let file = cache.get(key);
		if (!file) {
			file = read();
			cache.set(key, file);
			// A failed read (a missing file) is tried again on the next request.
			file.catch(() => cache.delete(key));
		}
		return file;
	};
	const yamlText = () => readFile(sources.openApiDocument, "utf8");
	const readable = (method: string) => method === "GET" || method === "HEAD";
	const refuseMethod = (response: ServerResponse, method: string, requestPath: string) => {
		response.setHeader("Allow", "GET, HEAD");
		throw new AppError("NOT_FOUND", `No route for ${method} ${requestPath}`);
	};
	const cacheFor = { "cache-control": "public, max-age=300" };
	return [
		{
			name: "openapi-document",
			errors: "envelope",
			matches: (requestPath) => requestPath === "/openapi.yaml" || requestPath === "/openapi.json",
			async handle({ request, response, path: requestPath }) {
				if (!readable(request.method ?? "")) return refuseMethod(response, request.method ?? "", requestPath);
				const file =
					requestPath === "/openapi.yaml"
						? await load("yaml", async () => served(await yamlText(), "application/yaml; charset=utf-8"))
						: await load("json", async () => served(JSON.stringify(parseYaml(await yamlText())), "application/json; charset=utf-8"));
				send(request, response, file, { ...cacheFor, "access-control-allow-origin": "*" });
			},
		},
		{
			name: "api-reference",
			errors: "envelope",
			matches: (requestPath) => requestPath === "/docs" || requestPath === "/docs/" || Object.hasOwn(ASSETS, requestPath),
			async handle({ request, response, path: requestPath }) {
				if (!readable(request.method ?? "")) return refuseMethod(response, request.method ?? "", requestPath);
				if (requestPath === "/docs" || requestPath === "/docs/") {
					const page = await load("page", async () => served(PAGE, "text/html; charset=utf-8"));
					return send(request, response, page, { "content-security-policy": API_REFERENCE_PAGE_CSP, "x-frame-options": "DENY", "referrer-policy": "same-origin", "cache-control": "no-cache" });
				}
				const asset = ASSETS[requestPath];
				const file = await load(requestPath, async () => served(await asset.read(), asset.contentType));
				send(request, response, file, cacheFor);
			},
		},
	];
}
