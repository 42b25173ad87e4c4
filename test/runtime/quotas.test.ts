import { createClient } from "@redis/client";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../server/modules/api-keys/revoke-api-key";
import { type RunningPlatform, startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { startTestPlatform, TEST_EGRESS, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";
import { freePort, startTestRedis, type TestRedis } from "../helpers/redis";
import { awayFromMinuteBoundary } from "../helpers/rate-limit-window";
import { GENERATION_SURFACES, type GenerationSurface, RUNTIME_SURFACE } from "./generation-surfaces";
import { executeBody, workspaceWithCredential } from "./runtime-fixtures";

let platform: TestPlatform;
let secondInstance: RunningPlatform;
let standIn: ProviderStandIn;

beforeAll(async () => {
	platform = await startTestPlatform();
	// A second server over the same database: limits must hold across instances.
	secondInstance = await startPlatform({ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, port: 0, host: "127.0.0.1", logger: createLogger("silent"), egress: TEST_EGRESS });
	standIn = await startProviderStandIn();
});
afterAll(async () => {
	await standIn?.close();
	await secondInstance?.close();
	await platform?.stop();
});
beforeEach(() => standIn.reset());

/** A generation through `surface` (default /runtime/execute); the error's code read from either shape. */
const generate = async (surface: GenerationSurface, baseUrl: string, key: string) => {
	const response = await fetch(`${baseUrl}${surface.path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(surface.body()) });
	return { response, code: response.ok ? undefined : surface.error(await response.json()).code };
};
const execute = (baseUrl: string, key: string, body: unknown = executeBody()) =>
	fetch(`${baseUrl}/runtime/execute`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

/** A burst may first wait up to 25 s for a fresh window. */
const BURST_TIMEOUT_MS = 90_000;

const limitedKey = async (limit: number) => {
	const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = ? where id = ?", [limit, workspace.workspaceId]);
	return workspace.createKey(["runtime:execute"]);
};

/**
 * `count` concurrent generations on one fresh key, spread over `instances` in turn: exactly `limit`
 * succeed, every other one is 429 RATE_LIMITED whose Retry-After is the whole seconds until the
 * window ends (when a request can next succeed), and the provider sees exactly `limit` calls.
 *
 * Client and servers share this process's event loop, which would let requests trickle in one by
 * one; to make the burst a real one, the workspaces table is locked (another connection, as a busy
 * database would) until every request has reached a server, so they all meet at the quota.
 */
async function expectBurstGetsItsLimit(instances: RunningPlatform[], limit: number, count: number, surface: GenerationSurface = RUNTIME_SURFACE) {
	const key = await limitedKey(limit);
	// The burst must fit in one window, even on a loaded machine.
	await awayFromMinuteBoundary(25_000);
	const blocker = new pg.Client({ connectionString: platform.databaseUrl });
	await blocker.connect();
	let received = 0;
	let allReceived!: () => void;
	const arrived = new Promise<void>((resolve) => (allReceived = resolve));
	const onRequest = () => {
		if (++received === count) allReceived();
	};
	for (const instance of instances) instance.server.on("request", onRequest);
	try {
		await blocker.query("begin");
		await blocker.query("lock table workspaces in access exclusive mode");
		const sentAt = Date.now();
		const pending = Promise.all(
			Array.from({ length: count }, async (_, index) => {
				const { response, code } = await generate(surface, instances[index % instances.length].url, key.key);
				if (response.ok) await response.arrayBuffer();
				return { status: response.status, code, retryAfter: Number(response.headers.get("retry-after")), receivedAt: Date.now() };
			}),
		);
		await arrived;
		await blocker.query("commit");
		const answers = await pending;
		const windowEnd = Math.floor(sentAt / 60_000) * 60_000 + 60_000;
		const refused = answers.filter((answer) => answer.status !== 200);
		expect(answers.length - refused.length).toBe(limit);
		expect(refused).toHaveLength(count - limit);
		for (const answer of refused) {
			expect(answer).toMatchObject({ status: 429, code: "RATE_LIMITED" });
			expect(answer.receivedAt + answer.retryAfter * 1000).toBeGreaterThanOrEqual(windowEnd);
			expect(sentAt + answer.retryAfter * 1000).toBeLessThan(windowEnd + 1000);
		}
		expect(standIn.requests).toHaveLength(limit);
	} finally {
		for (const instance of instances) instance.server.off("request", onRequest);
		await blocker.end();
	}
}

describe.each(GENERATION_SURFACES)("quotas on generations through $name", (surface) => {
	it("limits requests per key per minute across server instances, with Retry-After", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = 4 where id = ?", [workspaceId]);
		await awayFromMinuteBoundary();
		const statuses: number[] = [];
		for (const baseUrl of [platform.url, secondInstance.url, platform.url, secondInstance.url]) statuses.push((await generate(surface, baseUrl, apiKey)).response.status);
		expect(statuses).toEqual([200, 200, 200, 200]);
		const limited = await generate(surface, secondInstance.url, apiKey);
		expect(limited.response.status).toBe(429);
		expect(limited.code).toBe("RATE_LIMITED");
		const retryAfter = Number(limited.response.headers.get("retry-after"));
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect(standIn.requests).toHaveLength(4);
	});

	it("a burst of 200 concurrent requests against 100/minute gets exactly 100, on two instances sharing the database", async () => {
		await expectBurstGetsItsLimit([platform, secondInstance], 100, 200, surface);
	}, BURST_TIMEOUT_MS);

	it("refuses generations once the workspace's monthly traced spend reaches its quota", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set monthly_spend_quota_micro_usd = 400 where id = ?", [workspaceId]);
		standIn.script({ kind: "completion", usage: { prompt_tokens: 1000, completion_tokens: 500 } });
		expect((await generate(surface, platform.url, apiKey)).response.status).toBe(200);
		await platform.services.traces.flush();
		const refused = await generate(surface, secondInstance.url, apiKey);
		expect(refused.response.status).toBe(429);
		expect(refused.code).toBe("COST_QUOTA_EXCEEDED");
		expect(standIn.requests).toHaveLength(1);
	});

	it("rejects a revoked key on the very next request, although keys are cached", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const key = await workspace.createKey(["runtime:execute"]);
		expect((await generate(surface, platform.url, key.key)).response.status).toBe(200);
		expect((await generate(surface, secondInstance.url, key.key)).response.status).toBe(200);
		await revokeApiKey(platform.operator(), { apiKeyId: key.id });
		for (const baseUrl of [platform.url, secondInstance.url]) {
			const refused = await generate(surface, baseUrl, key.key);
			expect(refused.response.status).toBe(401);
			expect(refused.code).toBe("INVALID_CREDENTIALS");
		}
	});
});

describe("quotas", () => {
	it("a burst of 200 concurrent requests against 100/minute gets exactly 100, on one instance", async () => {
		await expectBurstGetsItsLimit([platform], 100, 200);
	}, BURST_TIMEOUT_MS);

	it("limits knowledge routes per key too, in a budget of their own: 429 with Retry-After on reads and writes, generations unaffected", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = 3 where id = ?", [workspace.workspaceId]);
		const key = await workspace.createKey(["runtime:execute", "knowledge:read", "knowledge:write"]);
		const knowledge = (baseUrl: string, method = "GET", body?: unknown) =>
			fetch(`${baseUrl}/knowledge/sources`, {
				method,
				headers: { authorization: `Bearer ${key.key}`, ...(body ? { "content-type": "application/json" } : {}) },
				body: body ? JSON.stringify(body) : undefined,
			});
		await awayFromMinuteBoundary();
		const statuses: number[] = [];
		for (const baseUrl of [platform.url, secondInstance.url, platform.url]) statuses.push((await knowledge(baseUrl)).status);
		expect(statuses).toEqual([200, 200, 200]);
		for (const refused of [await knowledge(secondInstance.url), await knowledge(platform.url, "POST", { name: "not created" })]) {
			expect(refused.status).toBe(429);
			expect(await refused.json()).toMatchObject({ code: "RATE_LIMITED", status: 429, message: "This API key is limited to 3 knowledge requests per minute" });
			const retryAfter = Number(refused.headers.get("retry-after"));
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			expect(retryAfter).toBeLessThanOrEqual(60);
		}
		const [{ count }] = await platform.orm.em.fork().getConnection().execute("select count(*)::int as count from knowledge_sources where workspace_id = ?", [workspace.workspaceId]);
		expect(count).toBe(0);
		// The runtime budget of the same key is untouched by its knowledge requests.
		expect((await execute(platform.url, key.key)).status).toBe(200);
	});

	it("keeps knowledge open to a workspace past its spend quota: spend is the runtime's", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set monthly_spend_quota_micro_usd = 1 where id = ?", [workspace.workspaceId]);
		const key = await workspace.createKey(["runtime:execute", "knowledge:read"]);
		standIn.script({ kind: "completion", usage: { prompt_tokens: 1000, completion_tokens: 500 } });
		expect((await execute(platform.url, key.key)).status).toBe(200);
		await platform.services.traces.flush();
		expect((await execute(platform.url, key.key)).status).toBe(429);
		const listed = await fetch(`${platform.url}/knowledge/sources`, { headers: { authorization: `Bearer ${key.key}` } });
		expect(listed.status).toBe(200);
	});
});

describe("quotas with REDIS_URL", () => {
	const instances: RunningPlatform[] = [];
	let redis: TestRedis;
	beforeAll(async () => {
		redis = await startTestRedis();
	});
	const startInstance = async (redisUrl: string) => {
		const instance = await startPlatform({ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, port: 0, host: "127.0.0.1", logger: createLogger("silent"), redisUrl, egress: TEST_EGRESS });
		instances.push(instance);
		return instance;
	};
	afterAll(async () => {
		await Promise.all(instances.map((instance) => instance.close()));
		await redis?.stop();
	});

	const windowRows = async (apiKeyId: string) =>
		(await platform.orm.em.fork().getConnection().execute<{ request_count: number }[]>("select request_count from rate_limit_windows where subject = ?", [`key:${apiKeyId}`])).map(
			(row) => row.request_count,
		);

	it("shares one counter per key across instances in Redis, and writes no rate-limit rows to PostgreSQL", async () => {
		const [first, second] = [await startInstance(redis.url), await startInstance(redis.url)];
		const key = await limitedKey(3);
		await awayFromMinuteBoundary();
		const windowStart = Math.floor(Date.now() / 60_000) * 60_000;
		const statuses: number[] = [];
		for (const instance of [first, second, first, second]) statuses.push((await execute(instance.url, key.key)).status);
		expect(statuses).toEqual([200, 200, 200, 429]);
		expect(standIn.requests).toHaveLength(3);

		const client = createClient({ url: redis.url });
		await client.connect();
		try {
			const counterKey = `rate-limit:key:${key.id}:${windowStart}`;
			expect(Number(await client.get(counterKey))).toBe(4);
			// Counters expire on their own after their window.
			const ttl = await client.pTTL(counterKey);
			expect(ttl).toBeGreaterThan(0);
			expect(ttl).toBeLessThanOrEqual(120_000);
		} finally {
			await client.close();
		}
		expect(await windowRows(key.id)).toEqual([]);
	});

	it("a burst of 200 concurrent requests against 100/minute gets exactly 100, on one instance", async () => {
		await expectBurstGetsItsLimit([await startInstance(redis.url)], 100, 200);
	}, BURST_TIMEOUT_MS);

	it("a burst of 200 concurrent requests against 100/minute gets exactly 100, on two instances sharing Redis", async () => {
		const [first, second] = [await startInstance(redis.url), await startInstance(redis.url)];
		await expectBurstGetsItsLimit([first, second], 100, 200);
	}, BURST_TIMEOUT_MS);

	it("falls back to the PostgreSQL counter while Redis does not answer", async () => {
		const unreachable = await startInstance(`redis://127.0.0.1:${await freePort()}`);
		const key = await limitedKey(2);
		await awayFromMinuteBoundary();
		const statuses: number[] = [];
		for (let index = 0; index < 3; index++) statuses.push((await execute(unreachable.url, key.key)).status);
		expect(statuses).toEqual([200, 200, 429]);
		expect(await windowRows(key.id)).toEqual([3]);
	});
});
