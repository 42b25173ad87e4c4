import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import { callMcp, connectMcpClient } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { awayFromMinuteBoundary } from "../helpers/rate-limit-window";
import { rawExchange } from "../helpers/raw-http";
import { startTestRedis, type TestRedis } from "../helpers/redis";

const PASSWORD = "correct horse battery";
const PER_CONNECTION = 4;
const PER_USER = 6;

/** /mcp over real HTTP with real OAuth tokens: what the endpoint itself answers, before and around the tools. */
describe("the /mcp endpoint", () => {
	let first: TestPlatform;
	let second: TestPlatform;
	let workspace: TestWorkspace;
	const emails: string[] = [];

	const newMember = async () => {
		const email = `endpoint-${emails.length}-${Date.now()}@example.com`;
		await createUser(first.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		emails.push(email);
		return email;
	};
	const tokensFor = (email: string) => connectMcpClient(first.url, { email, password: PASSWORD, scopes: ["mcp:write"] });
	const openStream = (baseUrl: string, accessToken: string) =>
		fetch(`${baseUrl}/mcp`, { headers: { authorization: `Bearer ${accessToken}`, accept: "text/event-stream" }, signal: AbortSignal.timeout(5_000) });
	const connectionIdOf = async (clientId: string) =>
		((await first.orm.em.getConnection().execute("select id from oauth_connections where client_id = ?", [clientId])) as { id: string }[])[0].id;

	beforeAll(async () => {
		const quotas = { mcpConnectionRequestsPerMinute: PER_CONNECTION, mcpUserRequestsPerMinute: PER_USER };
		first = await startTestPlatform({ quotas });
		// A second instance on the same database behind the same public address, as behind a load balancer.
		second = await startTestPlatform({ quotas, databaseUrl: first.databaseUrl, publicBaseUrl: first.services.settings.publicBaseUrl });
		workspace = await first.createWorkspace();
	}, 60_000);
	afterAll(async () => {
		await second?.stop();
		await first?.stop();
	});

	it("answers GET with 405, so no stream is held open; the SDK's client carries on without one and its tools work, until the connection is revoked", async () => {
		const tokens = await tokensFor(await newMember());
		const opened = await openStream(first.url, tokens.accessToken);
		expect(opened.status).toBe(405);
		expect(opened.headers.get("allow")).toBe("POST");
		expect(await opened.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringContaining("send JSON-RPC requests with POST") } });

		// The official client asks for the stream once initialized; 405 means "none offered", not a failure.
		const seen: { method: string; status: number }[] = [];
		const errors: unknown[] = [];
		const transport = new StreamableHTTPClientTransport(new URL(`${first.url}/mcp`), {
			requestInit: { headers: { authorization: `Bearer ${tokens.accessToken}` } },
			fetch: async (url, init) => {
				const response = await fetch(url, init);
				seen.push({ method: init?.method ?? "GET", status: response.status });
				return response;
			},
		});
		const client = new Client({ name: "endpoint-test-client", version: "1.0.0" });
		client.onerror = (error) => errors.push(error);
		await client.connect(transport);
		const me = await client.callTool({ name: "whoami", arguments: {} });
		expect(me.structuredContent).toMatchObject({ user: { email: emails.at(-1) }, organizationId: workspace.organizationId });
		await expect.poll(() => seen.some((request) => request.method === "GET")).toBe(true);
		expect(seen.filter((request) => request.method === "GET")).toEqual([{ method: "GET", status: 405 }]);
		expect(errors).toEqual([]);
		await client.close();

		await revokeConnection(first.operator(), { id: await connectionIdOf(tokens.client.clientId) });
		const afterRevocation = await openStream(first.url, tokens.accessToken);
		expect(afterRevocation.status).toBe(401);
		await afterRevocation.body?.cancel();
	}, 60_000);

	it("refuses NUL and lone surrogates in arguments over HTTP as a tool error, and never answers with SQL", async () => {
		const tokens = await tokensFor(await newMember());
		const nul = await callMcp(first.url, tokens.accessToken, "tools/call", { name: "create_assistant", arguments: { workspaceId: workspace.workspaceId, slug: "nul", name: "Nul\u0000name" } });
		const surrogate = await callMcp(first.url, tokens.accessToken, "tools/call", { name: "create_assistant", arguments: { workspaceId: workspace.workspaceId, slug: "lone", name: "Lone \udc00" } });
		for (const response of [nul, surrogate]) {
			expect(response.status).toBe(200);
			const body = (await response.json()) as { result: { isError: boolean; content: { text: string }[] } };
			expect(body.result).toEqual({
				isError: true,
				content: [{ type: "text", text: "VALIDATION_ERROR: Invalid arguments for create_assistant: name: Must not contain NUL (U+0000) or an unpaired UTF-16 surrogate" }],
			});
		}
		const audit = (await first.orm.em
			.getConnection()
			.execute("select action, outcome, details->'arguments'->>'name' as name, details->>'requestId' as request_id from audit_events where details->>'clientId' = ? order by created_at, id", [
				tokens.client.clientId,
			])) as { action: string; outcome: string; name: string; request_id: string }[];
		expect(audit).toEqual([
			{ action: "mcp.create_assistant", outcome: "failure", name: "Nul\ufffdname", request_id: nul.headers.get("x-request-id") },
			{ action: "mcp.create_assistant", outcome: "failure", name: "Lone \ufffd", request_id: surrogate.headers.get("x-request-id") },
		]);
		expect(await first.orm.em.getConnection().execute("select slug from assistants where workspace_id = ? and slug in ('nul', 'lone')", [workspace.workspaceId])).toEqual([]);
	}, 60_000);

	it("answers arguments with ever more invalid values at once, naming at most 20 fields, while /healthz keeps answering within 3 s", async () => {
		const tokens = await tokensFor(await newMember());
		// Built before the clock starts: the server shares this process, and building them holds its loop too.
		const bodies = [1_000, 10_000, 100_000, 300_000].map((values) => {
			// null fits none of a variable's types (text, number, boolean): each value fails a union.
			const variables = Object.fromEntries(Array.from({ length: values }, (_, index) => [`v${index}`, null]));
			const call = { name: "execute_assistant", arguments: { workspaceId: workspace.workspaceId, slug: "none", input: "hi", variables } };
			return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: call });
		});
		const answers: string[] = [];
		let slowestHealthMs = 0;
		let polling = true;
		const health = (async () => {
			while (polling) {
				const started = performance.now();
				await (await fetch(`${first.url}/healthz`)).arrayBuffer();
				slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
			}
		})();
		try {
			for (const body of bodies) {
				const response = await fetch(`${first.url}/mcp`, {
					method: "POST",
					headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${tokens.accessToken}` },
					body,
				});
				const answer = (await response.json()) as { result: { isError: boolean; content: { text: string }[] } };
				expect(answer.result.isError).toBe(true);
				answers.push(answer.result.content[0].text);
			}
		} finally {
			polling = false;
			await health;
		}
		expect(answers[0]).toMatch(/^VALIDATION_ERROR: Invalid arguments for execute_assistant: variables\.v0: .*; and 980 more$/);
		for (const answer of answers.slice(1)) {
			expect(answer).toBe("VALIDATION_ERROR: Invalid arguments for execute_assistant: arguments: More than 2000 values (array items and object members) in all");
		}
		expect(slowestHealthMs).toBeLessThan(3_000);
		const [row] = (await first.orm.em
			.getConnection()
			.execute("select max(length(details::text)) as longest from audit_events where details->>'clientId' = ?", [tokens.client.clientId])) as { longest: number }[];
		expect(row.longest).toBeLessThan(10_000);
	}, 120_000);

	it("rate-limits each connection and each user across instances: 429 in the envelope with Retry-After, counted before the body is read", async () => {
		const email = await newMember();
		const [one, two] = [await tokensFor(email), await tokensFor(email)];
		await awayFromMinuteBoundary();
		const list = (baseUrl: string, accessToken: string) => callMcp(baseUrl, accessToken, "tools/list");

		// The connection's budget, spent on both instances.
		for (const baseUrl of [first.url, second.url, first.url, second.url]) expect((await list(baseUrl, one.accessToken)).status).toBe(200);
		const connectionRefused = await list(second.url, one.accessToken);
		expect(connectionRefused.status).toBe(429);
		const retryAfter = Number(connectionRefused.headers.get("retry-after"));
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect(await connectionRefused.json()).toEqual({ code: "RATE_LIMITED", status: 429, message: `This connection is limited to ${PER_CONNECTION} MCP requests per minute; retry in ${retryAfter} s` });
		// Refused before the body is read: a megabyte declared and never sent gets its answer, and the connection is closed.
		const host = new URL(first.url).host;
		const withheld = await rawExchange(
			first.url,
			`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${one.accessToken}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n\r\n{"jsonrpc":`,
			5_000,
		);
		expect(withheld.head).toMatch(/^HTTP\/1\.1 429 .*\r\n(.*\r\n)*connection: close\r\n/i);
		expect(withheld.closedByServer).toBe(true);

		// The user's budget, over both connections: the refused request above did not count against it.
		for (let request = PER_CONNECTION; request < PER_USER; request++) expect((await list(first.url, two.accessToken)).status).toBe(200);
		const userRefused = await list(first.url, two.accessToken);
		expect(userRefused.status).toBe(429);
		expect(userRefused.headers.get("retry-after")).toMatch(/^\d+$/);
		expect(((await userRefused.json()) as { message: string }).message).toMatch(new RegExp(`^Your connections together are limited to ${PER_USER} MCP requests per minute`));

		// Another user is not affected.
		expect((await list(second.url, (await tokensFor(await newMember())).accessToken)).status).toBe(200);
	}, 120_000);

	it("counts a JSON-RPC batch as its messages: one over the limit is refused whole, in JSON-RPC as well as with 429 and Retry-After", async () => {
		const tokens = await tokensFor(await newMember());
		await awayFromMinuteBoundary();
		const batch = (size: number, from: number) =>
			fetch(`${first.url}/mcp`, {
				method: "POST",
				headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${tokens.accessToken}` },
				body: JSON.stringify(Array.from({ length: size }, (_, index) => ({ jsonrpc: "2.0", id: from + index, method: "tools/call", params: { name: "whoami", arguments: {} } }))),
			});
		const admitted = await batch(2, 1);
		expect(admitted.status).toBe(200);
		expect(((await admitted.json()) as { id: number }[]).map((answer) => answer.id).sort()).toEqual([1, 2]);

		const refused = await batch(PER_CONNECTION, 10);
		expect(refused.status).toBe(429);
		expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		const answers = (await refused.json()) as { jsonrpc: string; id: number; error: { code: number; message: string; data: { code: string } } }[];
		expect(answers.map((answer) => answer.id)).toEqual([10, 11, 12, 13]);
		expect(answers.every((answer) => answer.error.data.code === "RATE_LIMITED" && answer.error.message.startsWith("RATE_LIMITED: This connection is limited"))).toBe(true);
		// None of the refused batch ran: only the two whoami calls of the first batch are audited.
		const audit = await first.orm.em.getConnection().execute("select action from audit_events where details->>'clientId' = ?", [tokens.client.clientId]);
		expect(audit).toHaveLength(2);
	}, 60_000);
});

describe("the /mcp rate limit with REDIS_URL", () => {
	let redis: TestRedis;
	let first: TestPlatform;
	let second: TestPlatform;
	let email: string;
	beforeAll(async () => {
		redis = await startTestRedis();
		const options = { quotas: { mcpConnectionRequestsPerMinute: 3, mcpUserRequestsPerMinute: 100 }, redisUrl: redis.url };
		first = await startTestPlatform(options);
		second = await startTestPlatform({ ...options, databaseUrl: first.databaseUrl, publicBaseUrl: first.services.settings.publicBaseUrl });
		const workspace = await first.createWorkspace();
		email = `redis-${Date.now()}@example.com`;
		await createUser(first.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
	}, 60_000);
	afterAll(async () => {
		await second?.stop();
		await first?.stop();
		await redis?.stop();
	});

	it("counts in Redis across instances and writes no rate-limit rows to PostgreSQL", async () => {
		const tokens = await connectMcpClient(first.url, { email, password: PASSWORD });
		await awayFromMinuteBoundary();
		const statuses: number[] = [];
		for (const baseUrl of [first.url, second.url, first.url, second.url]) {
			const response = await callMcp(baseUrl, tokens.accessToken, "tools/list");
			await response.body?.cancel();
			statuses.push(response.status);
		}
		expect(statuses).toEqual([200, 200, 200, 429]);
		expect(await first.orm.em.getConnection().execute("select subject from rate_limit_windows where subject like 'mcp-%'")).toEqual([]);
	}, 60_000);
});
