import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { createLogger, type Logger } from "../../server/shared/logger";
import { callMcp, connectMcpClient, CookieJar, pageText, pkcePair, type OAuthClient } from "../helpers/oauth-flow";
import { listenOnLoopback, type LoopbackServer } from "../helpers/loopback-server";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";
const REDIRECT_URI = "http://127.0.0.1:8976/callback";

/** A certificate for 127.0.0.1 and localhost, signed by itself: the authorization server trusts it through its CA option. */
async function createSelfSignedCertificate(): Promise<{ key: string; certificate: string }> {
	const directory = await mkdtemp(join(tmpdir(), "client-metadata-tls-"));
	try {
		await promisify(execFile)("openssl", [
			"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
			"-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
			"-keyout", join(directory, "key.pem"), "-out", join(directory, "certificate.pem"),
		]);
		return { key: await readFile(join(directory, "key.pem"), "utf8"), certificate: await readFile(join(directory, "certificate.pem"), "utf8") };
	} finally {
		await rm(directory, { recursive: true, force: true });
	}
}

interface DocumentAnswer {
	status?: number;
	headers?: Record<string, string>;
	body?: string | Record<string, unknown>;
	/** Send the headers, then never the body: a document server slower than any budget. */
	hold?: boolean;
	/** Stream the body in pieces, without a Content-Length. */
	chunked?: boolean;
}

/** Where client metadata documents live: an HTTPS server on loopback that counts what it is asked. */
interface DocumentServer extends LoopbackServer {
	origin: string;
	/** Connections accepted (a refused fetch must not even connect). */
	connections: number;
	/** Answers `path` so (replacing an earlier answer); returns the document's URL. */
	serve(path: string, answer: DocumentAnswer): string;
	hits(path: string): number;
}

async function startDocumentServer(tls: { key: string; certificate: string }): Promise<DocumentServer> {
	const answers = new Map<string, DocumentAnswer>();
	const hits = new Map<string, number>();
	let connections = 0;
	const server = createServer({ key: tls.key, cert: tls.certificate }, (request, response) => {
		const path = new URL(request.url ?? "/", "https://localhost").pathname;
		hits.set(path, (hits.get(path) ?? 0) + 1);
		const answer = answers.get(path);
		if (!answer) return void response.writeHead(404).end();
		if (answer.hold) {
			response.writeHead(200, { "content-type": "application/json" });
			response.flushHeaders();
			return;
		}
		const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
		response.writeHead(answer.status ?? 200, { "content-type": "application/json", ...(answer.chunked ? {} : { "content-length": Buffer.byteLength(body) }), ...answer.headers });
		// Without a Content-Length (chunked), the size limit must hold while the body streams.
		if (answer.chunked) response.write(body.slice(0, 100));
		response.end(answer.chunked ? body.slice(100) : body);
	});
	server.on("connection", () => void (connections += 1));
	const listening = await listenOnLoopback(server);
	return {
		...listening,
		origin: `https://127.0.0.1:${listening.port}`,
		get connections() {
			return connections;
		},
		serve(path, answer) {
			answers.set(path, answer);
			return `https://127.0.0.1:${listening.port}${path}`;
		},
		hits: (path) => hits.get(path) ?? 0,
	};
}

/** A client metadata document (draft-ietf-oauth-client-id-metadata-document) for a public MCP client. */
function clientDocument(clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		client_id: clientId,
		client_name: "Metadata Document Client",
		redirect_uris: [REDIRECT_URI],
		grant_types: ["authorization_code", "refresh_token"],
		response_types: ["code"],
		token_endpoint_auth_method: "none",
		application_type: "native",
		...extra,
	};
}

let unique = 0;
/** A fresh path per test: oidc-provider caches documents by URL. */
function documentPath(name: string): string {
	unique += 1;
	return `/clients/${name}-${unique}.json`;
}

/** The first authorization request a client sends, with PKCE; what the browser is answered. */
async function startAuthorization(platform: TestPlatform, clientId: string, redirectUri = REDIRECT_URI, jar = new CookieJar()): Promise<{ status: number; location: string | null; type: string | null; html: string; text: string }> {
	const url = new URL("/oauth/authorize", platform.url);
	const { challenge } = pkcePair();
	for (const [name, value] of Object.entries({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", scope: "mcp:read" })) {
		url.searchParams.set(name, value);
	}
	const response = await fetch(url, { redirect: "manual" });
	jar.store(response);
	const html = await response.text();
	return { status: response.status, location: response.headers.get("location"), type: response.headers.get("content-type"), html, text: pageText(html) };
}

interface LogLine {
	level: string;
	message: string;
	[key: string]: unknown;
}

function captureLogs(): { lines: LogLine[]; logger: Logger } {
	const lines: LogLine[] = [];
	const write = (level: string) => (message: string, context?: Record<string, unknown>) => void lines.push({ ...context, level, message });
	return { lines, logger: { ...createLogger("silent"), debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") } };
}

/** Waits until the authorization server has logged why it refused `clientId`. */
async function refusalReason(logs: LogLine[], clientId: string): Promise<string> {
	await expect.poll(() => logs.some((line) => line.message === "client metadata document refused" && line.clientId === clientId)).toBe(true);
	return String(logs.find((line) => line.message === "client metadata document refused" && line.clientId === clientId)?.reason);
}

/** The page a refused authorization shows: HTML, no redirect anywhere (so no code, so no token), and what the person reads. */
function expectRefusalPage(answer: Awaited<ReturnType<typeof startAuthorization>>): string {
	expect(answer.status).toBe(400);
	expect(answer.location).toBeNull();
	expect(answer.type).toMatch(/^text\/html/);
	expect(answer.text).toMatch(/^This sign-in request cannot continue /);
	expect(answer.text).not.toMatch(/at \w+ \(|node_modules|undici/);
	return answer.text;
}

describe("Client ID Metadata Documents: the client_id is the https URL of a document describing the client", () => {
	let tls: { key: string; certificate: string };
	let documents: DocumentServer;
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	const logs = captureLogs();
	const email = `cimd-${Date.now()}@example.com`;

	beforeAll(async () => {
		tls = await createSelfSignedCertificate();
		documents = await startDocumentServer(tls);
		// Loopback is allowed here because the document server is local; every other check stays on.
		platform = await startTestPlatform({ logger: logs.logger, oauth: { clientMetadataAllowLoopback: true, clientMetadataCertificateAuthorities: tls.certificate } });
		workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
	});
	afterAll(async () => {
		await platform?.stop();
		await documents?.close();
	});

	/** A document served with `extra` metadata and `headers`; returns the client as an OAuth client knows itself. */
	function publishClient(name: string, options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {}): { client: OAuthClient; path: string } {
		const path = documentPath(name);
		const clientId = `${documents.origin}${path}`;
		documents.serve(path, { body: clientDocument(clientId, options.extra), headers: options.headers });
		return { client: { clientId, redirectUri: REDIRECT_URI }, path };
	}

	it("connects a client known only by its document: PKCE, sign-in, consent naming it and its redirect, token, then /mcp", async () => {
		const { client, path } = publishClient("whole-flow", { extra: { client_name: "Metadata Document Client" } });
		const pages: string[] = [];
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, client, pages, scopes: ["mcp:write"] });

		const signIn = pageText(pages[0]);
		expect(signIn).toContain("Metadata Document Client wants to use this platform on your behalf");
		const consent = pageText(pages.at(-1) as string);
		expect(consent).toContain("Allow Metadata Document Client to act for you?");
		expect(consent).toContain("you will be sent to 127.0.0.1:8976");
		expect(consent).toContain(REDIRECT_URI);
		expect(tokens.scope.split(" ").sort()).toEqual(["mcp:read", "mcp:write"]);

		const whoami = await callMcp(platform.url, tokens.accessToken, "tools/call", { name: "whoami", arguments: {} });
		expect(whoami.status).toBe(200);
		const { result } = (await whoami.json()) as { result: { structuredContent: Record<string, unknown> } };
		expect(result.structuredContent).toMatchObject({ user: { email }, clientId: client.clientId, organization: { id: workspace.organizationId }, scopes: ["mcp:read", "mcp:write"] });
		const tools = await callMcp(platform.url, tokens.accessToken, "tools/list");
		expect(tools.status).toBe(200);
		expect(documents.hits(path)).toBeGreaterThan(0);
	});

	it("refuses a document URL over plain http, without connecting", async () => {
		const connectionsBefore = documents.connections;
		const clientId = `http://127.0.0.1:${documents.port}${documentPath("plain-http")}`;
		const text = expectRefusalPage(await startAuthorization(platform, clientId));
		expect(text).toContain("its address is plain HTTP, and documents are fetched from https:// addresses only");
		expect(documents.connections).toBe(connectionsBefore);
	});

	it("refuses private, link-local and unspecified addresses without connecting, even with loopback allowed", async () => {
		for (const origin of [
			"https://10.0.0.1",
			"https://167772161", // 10.0.0.1 as one number
			"https://[::ffff:10.0.0.1]",
			"https://[64:ff9b::10.0.0.1]", // NAT64
			"https://[2002:a00:1::1]", // 6to4 of 10.0.0.1
			"https://169.254.169.254",
			"https://192.168.1.1",
			"https://[fd00::1]",
			"https://[fe80::1]",
		]) {
			const clientId = `${origin}${documentPath("private")}`;
			const text = expectRefusalPage(await startAuthorization(platform, clientId));
			expect(text).toContain("documents are fetched over HTTPS from public addresses only");
			// The address check, not a failed or timed-out connection, is what refused it.
			expect(await refusalReason(logs.lines, clientId)).toMatch(/is a special-use address/);
		}
		// 0.0.0.0 and [::] reach this very machine: the document server would see them if they were let through.
		const connectionsBefore = documents.connections;
		for (const host of ["0.0.0.0", "[::]"]) {
			const path = documentPath("unspecified");
			const clientId = `https://${host}:${documents.port}${path}`;
			documents.serve(path, { body: clientDocument(clientId) });
			expectRefusalPage(await startAuthorization(platform, clientId));
			expect(await refusalReason(logs.lines, clientId)).toMatch(/is a special-use address/);
		}
		expect(documents.connections).toBe(connectionsBefore);
	});

	it("refuses a document server that answers with a redirect, and does not follow it", async () => {
		const { client: target, path: targetPath } = publishClient("redirect-target");
		const path = documentPath("redirecting");
		const clientId = documents.serve(path, { status: 302, headers: { location: target.clientId } });
		const text = expectRefusalPage(await startAuthorization(platform, clientId));
		expect(text).toContain("its address answered with a redirect (HTTP 302)");
		expect(await refusalReason(logs.lines, clientId)).toContain("unexpected response status 302");
		// Asked once (not again to render the error), and the redirect's target never.
		expect(documents.hits(path)).toBe(1);
		expect(documents.hits(targetPath)).toBe(0);
	});

	it("refuses a document larger than 5 KiB, announced or streamed", async () => {
		for (const chunked of [false, true]) {
			const path = documentPath("large");
			const clientId = `${documents.origin}${path}`;
			documents.serve(path, { body: clientDocument(clientId, { client_name: "x".repeat(5 * 1024) }), chunked });
			const text = expectRefusalPage(await startAuthorization(platform, clientId));
			expect(text).toContain("it is larger than 5 KiB");
			expect(await refusalReason(logs.lines, clientId)).toMatch(chunked ? /ReadableStream is locked/ : /response too large/);
		}
	});

	it("refuses a document slower than the fetch budget", async () => {
		const path = documentPath("slow");
		const clientId = documents.serve(path, { hold: true });
		const text = expectRefusalPage(await startAuthorization(platform, clientId));
		expect(text).toContain("it did not arrive within 2.5 seconds");
		expect(documents.hits(path)).toBe(1);
	});

	it("refuses a document that is missing or not JSON", async () => {
		const missing = `${documents.origin}${documentPath("missing")}`;
		expect(expectRefusalPage(await startAuthorization(platform, missing))).toContain("its address answered HTTP 404 instead of the document");
		const path = documentPath("not-json");
		const notJson = documents.serve(path, { body: "<html>a landing page</html>" });
		expect(expectRefusalPage(await startAuthorization(platform, notJson))).toContain("it is not JSON");
	});

	it("refuses a document whose client_id is not its own URL", async () => {
		const path = documentPath("impostor");
		const clientId = documents.serve(path, { body: clientDocument(`${documents.origin}/clients/someone-else.json`) });
		const text = expectRefusalPage(await startAuthorization(platform, clientId));
		expect(text).toContain("its client_id is not the address it was fetched from");
		expect(await refusalReason(logs.lines, clientId)).toContain("client_id does not match");
	});

	it("refuses a redirect_uri the document does not list", async () => {
		const { client } = publishClient("listed-redirect");
		const text = expectRefusalPage(await startAuthorization(platform, client.clientId, "http://127.0.0.1:8976/elsewhere"));
		expect(text).toContain("asked to send you back to an address it did not register");
	});

	it("shows a document's markup and a hostile client_id as text, never as HTML", async () => {
		const { client } = publishClient("markup", { extra: { client_name: '<img src=x onerror="alert(1)">' } });
		const jar = new CookieJar();
		const { location } = await startAuthorization(platform, client.clientId, REDIRECT_URI, jar);
		const signIn = await (await fetch(new URL(location as string, platform.url), { headers: { cookie: jar.header() } })).text();
		expect(pageText(signIn)).toContain('<img src=x onerror="alert(1)"> wants to use this platform');
		expect(signIn).not.toContain("<img");
		const refused = await startAuthorization(platform, `${documents.origin}/clients/<script>alert(1)</script>.json`);
		expect(refused.text).toContain("<script>alert(1)</script>");
		expect(refused.html).not.toContain("<script>");
	});

	it("fetches a document once within its max-age, through any number of whole authorizations", async () => {
		const { client, path } = publishClient("cached", { headers: { "cache-control": "public, max-age=300" } });
		await connectMcpClient(platform.url, { email, password: PASSWORD, client });
		await connectMcpClient(platform.url, { email, password: PASSWORD, client });
		expect(documents.hits(path)).toBe(1);
	});

	it("fetches a document again for each authorization when it says no-store, no-cache or max-age=0, and reuses one that says nothing", async () => {
		for (const [cacheControl, fetches] of [["no-store", 2], ["no-cache", 2], ["max-age=0", 2], [undefined, 1]] as const) {
			const { client, path } = publishClient("uncached", { headers: cacheControl ? { "cache-control": cacheControl } : {} });
			for (let attempt = 0; attempt < 2; attempt++) {
				const answer = await startAuthorization(platform, client.clientId);
				expect(answer.location).toMatch(/^\/oauth\/interaction\//);
			}
			expect({ cacheControl, fetches: documents.hits(path) }).toEqual({ cacheControl, fetches });
		}
	});
});

describe("Client ID Metadata Documents with loopback refused (the default)", () => {
	let documents: DocumentServer;
	let platform: TestPlatform;
	const logs = captureLogs();

	beforeAll(async () => {
		const tls = await createSelfSignedCertificate();
		documents = await startDocumentServer(tls);
		// The certificate is trusted, so only the address can be what refuses.
		platform = await startTestPlatform({ logger: logs.logger, oauth: { clientMetadataCertificateAuthorities: tls.certificate } });
	});
	afterAll(async () => {
		await platform?.stop();
		await documents?.close();
	});

	it("refuses loopback addresses and names resolving to them, without connecting", async () => {
		for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "127.1.2.3"]) {
			const path = documentPath("loopback");
			const clientId = `https://${host}:${documents.port}${path}`;
			documents.serve(path, { body: clientDocument(clientId) });
			const text = expectRefusalPage(await startAuthorization(platform, clientId));
			expect(text).toContain("documents are fetched over HTTPS from public addresses only");
			expect(await refusalReason(logs.lines, clientId)).toMatch(/special-use address/);
		}
		expect(documents.connections).toBe(0);
	});
});
