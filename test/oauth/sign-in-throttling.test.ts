import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { type PlatformOptions, type RunningPlatform, startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { callMcp, connectMcpClient, pageText } from "../helpers/oauth-flow";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";
const WRONG = "not the password";
/** The default allowance: failed sign-ins for one email from one address before each attempt waits. */
const ALLOWANCE = 5;

interface Answer {
	status: number;
	retryAfter: number | null;
	text: string;
	location: string | undefined;
}

/**
 * A POST from a chosen loopback address (127.0.0.0/8 all reach the server on Linux), each on its
 * own connection, so the server sees that socket address as the client's.
 */
function post(baseUrl: string, path: string, form: Record<string, string>, options: { cookie?: string; from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
	const url = new URL(path, baseUrl);
	const body = JSON.stringify(form);
	return new Promise((resolve, reject) => {
		const outgoing = httpRequest(
			{
				host: url.hostname,
				port: url.port,
				path: url.pathname,
				method: "POST",
				agent: false,
				localAddress: options.from,
				headers: {
					"content-type": "application/json",
					"content-length": Buffer.byteLength(body),
					...(options.cookie ? { cookie: options.cookie } : {}),
					...options.headers,
				},
			},
			(response) => {
				let text = "";
				response.setEncoding("utf8");
				response.on("data", (chunk: string) => {
					text += chunk;
				});
				response.on("end", () => {
					const retryAfter = response.headers["retry-after"];
					resolve({ status: response.statusCode ?? 0, retryAfter: retryAfter === undefined ? null : Number(retryAfter), text: pageText(text), location: response.headers.location });
				});
			},
		);
		outgoing.on("error", reject);
		outgoing.end(body);
	});
}

/** Nothing to fetch first: the dashboard's sign-in is one JSON call (the consent screen's form goes through the same use case). */
async function connectionsForm(_baseUrl: string): Promise<Record<string, never>> {
	return {};
}

function signIn(baseUrl: string, _form: Record<string, never>, email: string, password: string, options: { from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
	return post(baseUrl, "/management/session", { email, password }, options);
}

/** Signed in: the dashboard answers with the session (and its cookie). */
const signedIn = (answer: Answer) => answer.status === 200;

/**
 * 199 wrong passwords for `email` at once, spread over `instances`, and the right one as soon as
 * the first refusal is back (or all are answered); then the right password again and again until
 * it gets in (or `giveUpAfterMs` has passed). Returns every answer of the burst and how the right password fared afterwards.
 */
async function burstThenRightPassword(instances: string[], email: string, giveUpAfterMs: number) {
	const forms = await Promise.all(instances.map(connectionsForm));
	let firstRefusal: () => void = () => {};
	const refused = new Promise<void>((resolve) => {
		firstRefusal = resolve;
	});
	const wrong = Array.from({ length: 199 }, (_, index) =>
		signIn(instances[index % instances.length], forms[index % instances.length], email, WRONG).then((answer) => {
			if (answer.status === 429) firstRefusal();
			return answer;
		}),
	);
	await Promise.race([refused, Promise.all(wrong)]);
	const right = await signIn(instances[0], forms[0], email, PASSWORD);
	const burst = [...(await Promise.all(wrong)), right];

	// The right password keeps being refused, without being checked, until the delay has passed.
	const refusedAt = Date.now();
	const later: Answer[] = [];
	for (;;) {
		const answer = await signIn(instances[later.length % instances.length], forms[later.length % instances.length], email, PASSWORD);
		later.push(answer);
		if (answer.status !== 429 || Date.now() - refusedAt > giveUpAfterMs) break;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	return { burst, right, later, waitedMs: Date.now() - refusedAt };
}

describe("sign-in throttling", { timeout: 180_000 }, () => {
	let platform: TestPlatform;
	let second: RunningPlatform | undefined;
	let workspace: TestWorkspace;
	// Longer than a burst takes to arrive and be checked on a busy machine: the delay is what refuses.
	const backoffSeconds = 20;
	// Every password of a burst waits its turn rather than being refused by the hashing queue: what is
	// refused below is refused by the throttle.
	const options: Partial<PlatformOptions> = { signIn: { backoffSeconds }, passwordHashing: { queue: 400 } };
	const newUser = async (name: string) => {
		const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		return email;
	};

	beforeAll(async () => {
		platform = await startTestPlatform(options);
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await second?.close();
		await platform?.stop();
	});

	it("checks at most the allowance of 200 parallel passwords for one email; the right one then waits out the delay", async () => {
		const email = await newUser("burst");
		const { burst, right, later, waitedMs } = await burstThenRightPassword([platform.url], email, 60_000);
		const checked = burst.filter((answer) => answer.status !== 429);
		expect(checked.length).toBeLessThanOrEqual(ALLOWANCE);
		expect(checked.every((answer) => answer.status === 401 && /do not match/.test(answer.text))).toBe(true);
		expect(right.status).toBe(429);
		expect(right.retryAfter).toBeGreaterThan(0);
		expect(right.retryAfter).toBeLessThanOrEqual(backoffSeconds);
		expect(right.text).toMatch(/Too many failed sign-ins for this email\. Try again in \d+ seconds?\./);
		// A delay, not a lock: the right password gets in once it has passed, and not long before.
		expect(signedIn(later[later.length - 1])).toBe(true);
		expect(waitedMs).toBeGreaterThan((backoffSeconds - 3) * 1000);
	});

	it("holds across two instances sharing the database", async () => {
		second = await startPlatform({
			...options,
			databaseUrl: platform.databaseUrl,
			secretKey: TEST_SECRET_KEY,
			port: 0,
			host: "127.0.0.1",
			publicBaseUrl: platform.services.settings.publicBaseUrl,
			dataDirectory: platform.dataDirectory,
			logger: createLogger("silent"),
		});
		const email = await newUser("two-instances");
		const { burst, right, later } = await burstThenRightPassword([platform.url, second.url], email, 60_000);
		expect(burst.filter((answer) => answer.status !== 429).length).toBeLessThanOrEqual(ALLOWANCE);
		expect(right.status).toBe(429);
		expect(signedIn(later[later.length - 1])).toBe(true);
	});

	it("does not stop the real user, signing in from another address, while an attacker hammers their email", async () => {
		const email = await newUser("targeted");
		const form = await connectionsForm(platform.url);
		const attack = await Promise.all(Array.from({ length: 60 }, () => signIn(platform.url, form, email, WRONG, { from: "127.0.0.2" })));
		// A forged X-Forwarded-For does not make the attacker someone else: no proxy is trusted by default.
		const forged = await signIn(platform.url, form, email, WRONG, { from: "127.0.0.2", headers: { "x-forwarded-for": "198.51.100.23" } });
		const attackerWithThePassword = await signIn(platform.url, form, email, PASSWORD, { from: "127.0.0.2" });

		// The person, elsewhere, mistypes once and then gets in at once.
		const typo = await signIn(platform.url, form, email, WRONG, { from: "127.0.0.3" });
		const person = await signIn(platform.url, form, email, PASSWORD, { from: "127.0.0.3" });
		expect(typo.status).toBe(401);
		expect(signedIn(person)).toBe(true);

		expect(attack.filter((answer) => answer.status !== 429).length).toBeLessThanOrEqual(ALLOWANCE);
		expect(forged.status).toBe(429);
		expect(attackerWithThePassword.status).toBe(429);
	});

	it("behind a trusted proxy, tells clients apart by X-Forwarded-For", async () => {
		const proxied = await startTestPlatform({ ...options, trustedProxies: ["127.0.0.0/8"] });
		try {
			const proxiedWorkspace = await proxied.createWorkspace();
			const email = `proxied-${Date.now()}@example.com`;
			await createUser(proxied.operator(), { email, password: PASSWORD, organizationId: proxiedWorkspace.organizationId, role: "member" });
			const form = await connectionsForm(proxied.url);
			// Each hop appends the address it received from: the attacker's own prefix is not believed.
			const attacker = { "x-forwarded-for": "10.9.8.7, 203.0.113.50" };
			const attack = await Promise.all(Array.from({ length: 30 }, () => signIn(proxied.url, form, email, WRONG, { headers: attacker })));
			const spoofed = await signIn(proxied.url, form, email, PASSWORD, { headers: { "x-forwarded-for": "192.0.2.1, 203.0.113.50" } });
			const person = await signIn(proxied.url, form, email, PASSWORD, { headers: { "x-forwarded-for": "198.51.100.7" } });
			expect(signedIn(person)).toBe(true);
			expect(attack.filter((answer) => answer.status !== 429).length).toBeLessThanOrEqual(ALLOWANCE);
			expect(spoofed.status).toBe(429);
		} finally {
			await proxied.stop();
		}
	});
});

describe("password hashing under a flood of sign-ins", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let accessToken: string;

	beforeAll(async () => {
		// whoami is called as fast as it answers: no MCP request limit gets in the way.
		platform = await startTestPlatform({ quotas: { mcpConnectionRequestsPerMinute: 0, mcpUserRequestsPerMinute: 0 } });
		const workspace = await platform.createWorkspace();
		const email = `flooded-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		({ accessToken } = await connectMcpClient(platform.url, { email, password: PASSWORD }));
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("keeps MCP calls and /healthz answering while 100 sign-ins with made-up emails arrive at once", async () => {
		const form = await connectionsForm(platform.url);
		let settled = false;
		const flood = Promise.all(Array.from({ length: 100 }, (_, index) => signIn(platform.url, form, `made-up-${index}-${Date.now()}@example.com`, WRONG))).finally(() => {
			settled = true;
		});
		const whoamiMs: number[] = [];
		const healthzMs: number[] = [];
		do {
			let started = Date.now();
			const whoami = await callMcp(platform.url, accessToken, "tools/call", { name: "whoami", arguments: {} });
			expect(whoami.status).toBe(200);
			await whoami.text();
			whoamiMs.push(Date.now() - started);
			started = Date.now();
			expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
			healthzMs.push(Date.now() - started);
		} while (!settled);
		const answers = await flood;
		expect(Math.max(...whoamiMs)).toBeLessThan(2000);
		expect(Math.max(...healthzMs)).toBeLessThan(1000);
		// Each made-up email was either checked (and refused as any wrong password is) or refused at once
		// with when to come back, in words.
		for (const answer of answers) expect([401, 429]).toContain(answer.status);
		const busy = answers.filter((answer) => answer.status === 429);
		expect(busy.length).toBeGreaterThan(0);
		for (const answer of busy) {
			expect(answer.retryAfter).toBeGreaterThan(0);
			expect(answer.text).toMatch(/Try again in \d+ seconds?\./);
		}
	});
});
