import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registrationBucketOf } from "../../server/modules/oauth/admit-client-registration";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import { type RunningPlatform, startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { authorize, callMcp, connectMcpClient, jwtClaims, readTokens, refresh, registerClient } from "../helpers/oauth-flow";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";

const PASSWORD = "correct horse battery";

function register(baseUrl: string, metadata: Record<string, unknown>, init: Partial<RequestInit> = {}): Promise<Response> {
	return fetch(`${baseUrl}/oauth/register`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:8976/callback"], token_endpoint_auth_method: "none", ...metadata }),
		...init,
	});
}

async function storedClients(platform: TestPlatform): Promise<{ count: number; bytes: number }> {
	const [row] = (await platform.orm.em
		.getConnection()
		.execute("select count(*)::int as count, coalesce(sum(pg_column_size(payload)), 0)::int as bytes from oauth_records where model = 'Client'")) as { count: number; bytes: number }[];
	return row;
}

/** Polls /healthz one request after another until stopped; keeps the slowest answer. */
function pollHealth(baseUrl: string): { stop(): Promise<{ slowestMs: number; answers: number }> } {
	let running = true;
	let slowestMs = 0;
	let answers = 0;
	const loop = (async () => {
		while (running) {
			const started = performance.now();
			const response = await fetch(`${baseUrl}/healthz`);
			await response.arrayBuffer();
			slowestMs = Math.max(slowestMs, performance.now() - started);
			answers++;
		}
	})();
	return {
		async stop() {
			running = false;
			await loop;
			return { slowestMs, answers };
		},
	};
}

describe("dynamic client registration: sizes", () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startTestPlatform();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("refuses oversized metadata and fields: 200 registrations with 50 KB names store nothing, and /healthz stays quick", async () => {
		const before = await storedClients(platform);
		const health = pollHealth(platform.url);
		const name = "n".repeat(50 * 1024);
		const statuses: number[] = [];
		for (let batch = 0; batch < 10; batch++) {
			const responses = await Promise.all(Array.from({ length: 20 }, () => register(platform.url, { client_name: name })));
			for (const response of responses) {
				statuses.push(response.status);
				await response.body?.cancel();
			}
		}
		const { slowestMs, answers } = await health.stop();
		expect(new Set(statuses)).toEqual(new Set([413]));
		expect(await storedClients(platform)).toEqual(before);
		expect(answers).toBeGreaterThan(0);
		expect(slowestMs).toBeLessThan(1000);

		// Streamed without a length, the same body is read (within oidc-provider's own 56 KiB) and refused whole.
		const streamed = await register(platform.url, {}, {
			body: new Blob([JSON.stringify({ client_name: "n".repeat(40 * 1024), redirect_uris: ["http://127.0.0.1:8976/callback"], token_endpoint_auth_method: "none" })]).stream(),
			duplex: "half",
		} as RequestInit);
		expect(streamed.status).toBe(400);
		expect(await streamed.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("bytes") });

		for (const [metadata, field] of [
			[{ client_name: "a".repeat(101) }, "client_name"],
			[{ client_uri: `https://example.com/${"p".repeat(3000)}` }, "client_uri"],
			[{ redirect_uris: Array.from({ length: 11 }, (_, index) => `http://127.0.0.1:8976/callback${index}`) }, "redirect_uris"],
			// Text the database cannot store: refused as metadata, not a 500 from the insert.
			[{ client_name: "Inspector\u0000" }, "client_name"],
			[{ client_name: "Lone \ud800 surrogate" }, "client_name"],
		] as const) {
			const response = await register(platform.url, metadata);
			expect(response.status).toBe(400);
			const body = (await response.json()) as { error: string; error_description: string };
			expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
			expect(body.error_description).toContain(field);
		}
		expect(await storedClients(platform)).toEqual(before);

		const fine = await register(platform.url, { client_name: "A".repeat(100) });
		expect(fine.status).toBe(201);
		expect((await storedClients(platform)).count).toBe(before.count + 1);
	});
});

describe("dynamic client registration: a limit per address, shared by every instance", { timeout: 120_000 }, () => {
	let first: TestPlatform;
	let second: RunningPlatform | undefined;

	beforeAll(async () => {
		first = await startTestPlatform({ oauth: { registrationsPerHour: 5 } });
		second = await startPlatform({
			databaseUrl: first.databaseUrl,
			secretKey: TEST_SECRET_KEY,
			port: 0,
			host: "127.0.0.1",
			publicBaseUrl: first.services.settings.publicBaseUrl,
			dataDirectory: first.dataDirectory,
			logger: createLogger("silent"),
			oauth: { registrationsPerHour: 5 },
		});
	});
	afterAll(async () => {
		await second?.close();
		await first?.stop();
	});

	it("refuses the sixth registration within the hour from one address, on either instance, with Retry-After", async () => {
		const secondUrl = (second as RunningPlatform).url;
		for (const url of [first.url, first.url, secondUrl, first.url, secondUrl]) expect((await register(url, { client_name: "Counted" })).status).toBe(201);
		for (const url of [first.url, secondUrl]) {
			const refused = await register(url, { client_name: "One too many" });
			expect(refused.status).toBe(429);
			expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3000);
			expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
			expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable", error_description: expect.stringContaining("Too many client registrations") });
		}
		// The table holds no address in clear.
		const rows = (await first.orm.em.getConnection().execute("select id from oauth_registration_windows")) as { id: string }[];
		expect(rows.map((row) => row.id).join(" ")).not.toContain("127.0.0.1");
	});

	it("counts an IPv6 subscriber by its /64, and an IPv4-mapped address as IPv4", () => {
		expect(registrationBucketOf("2001:db8:1:2:aaaa::1")).toBe(registrationBucketOf("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"));
		expect(registrationBucketOf("2001:db8:1:2::1")).not.toBe(registrationBucketOf("2001:db8:1:3::1"));
		expect(registrationBucketOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
		expect(registrationBucketOf("203.0.113.7")).toBe("203.0.113.7");
	});
});

describe("dynamic client registration: unused clients expire", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	const email = `member-${Date.now()}@example.com`;

	beforeAll(async () => {
		platform = await startTestPlatform({ oauth: { unusedClientRetentionSeconds: 3, idleClientRetentionSeconds: 6, sweepIntervalSeconds: 1 } });
		const workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
	});
	afterAll(async () => {
		await platform?.stop();
	});

	const exists = async (clientId: string) =>
		((await platform.orm.em.getConnection().execute("select 1 from oauth_records where model = 'Client' and id = ?", [clientId])) as unknown[]).length === 1;

	it("removes a client never used for an authorization, and one whose connections all ended, but keeps one in use", async () => {
		const unused = await registerClient(platform.url, { name: "Never used" });
		const kept = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const ended = await connectMcpClient(platform.url, { email, password: PASSWORD });
		await revokeConnection(platform.operator(), { id: jwtClaims(ended.accessToken).connection_id as string });

		// The sweep runs every second here: poll until the ended client is gone (its idle period is the longest).
		const deadline = Date.now() + 60_000;
		while ((await exists(unused.clientId)) || (await exists(ended.client.clientId))) {
			expect(Date.now()).toBeLessThan(deadline);
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		expect(await exists(kept.client.clientId)).toBe(true);
		const whoami = await callMcp(platform.url, kept.accessToken, "tools/call", { name: "whoami", arguments: {} });
		expect(whoami.status).toBe(200);
		expect((await readTokens(await refresh(platform.url, kept.client, kept.refreshToken))).accessToken).toEqual(expect.any(String));

		// A removed client is unknown: a person sent to sign in for it is told so, and nothing is issued.
		await expect(authorize(platform.url, { email, password: PASSWORD, client: unused })).rejects.toThrow(/answered 400[\s\S]*not registered/);
		const token = await refresh(platform.url, ended.client, ended.refreshToken);
		expect(token.status).toBe(401);
		expect(await token.json()).toMatchObject({ error: "invalid_client" });
	});
});
