import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

const ROOT = join(import.meta.dirname, "..", "..");
const execFileAsync = promisify(execFile);
const STAND_IN_KEY = "sk-stand-in-readme";

/** The README's first steps, exactly as a newcomer pastes them (the block after the `first-steps` marker). */
function firstStepsBlock(): string {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const marker = readme.indexOf("<!-- first-steps:");
	expect(marker, "the README marks its first steps").toBeGreaterThan(-1);
	const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
	if (!block) throw new Error("no sh block after the first-steps marker");
	return block[1];
}

/**
 * Only what a test must change: the server's address (a random port, not 3000), and where OpenAI is
 * (the provider stand-in on this machine: no test sends traffic off it). Every command is otherwise
 * the README's, run by bash in the repository, with the operator CLI on the server's database.
 */
function asRunHere(block: string, port: number, providerBaseUrl: string): string {
	const apiKeyFlag = '--api-key "$OPENAI_API_KEY"';
	expect(block).toContain(apiKeyFlag);
	expect(block).toContain("localhost:3000");
	return block.replaceAll("localhost:3000", `127.0.0.1:${port}`).replace(apiKeyFlag, `${apiKeyFlag} --base-url ${providerBaseUrl}`);
}

describe("the README's first steps, run as written", { timeout: 180_000 }, () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;

	beforeAll(async () => {
		standIn = await startProviderStandIn();
		standIn.responder = (request) => {
			const system = (request.body.messages as { role: string; content: string }[]).find((message) => message.role === "system")?.content ?? "";
			return { kind: "completion", content: system.includes("Acme") ? ["Your order ", "ships today."] : ["Hello ", "from the ", "stand-in."] };
		};
		platform = await startTestPlatform();
	});
	afterAll(async () => {
		await platform?.stop();
		await standIn?.close();
	});

	it("bootstrap, a credential, a streamed answer, and a published assistant called by its slug all succeed", async () => {
		const port = new URL(platform.url).port;
		const script = `set -euo pipefail\n${asRunHere(firstStepsBlock(), Number(port), standIn.baseUrl)}`;
		const { stdout, stderr } = await execFileAsync("bash", ["-c", script], {
			cwd: ROOT,
			timeout: 150_000,
			maxBuffer: 10 * 1024 * 1024,
			env: {
				...process.env,
				DATABASE_URL: platform.databaseUrl,
				SECRET_KEY: TEST_SECRET_KEY,
				EGRESS_ALLOW_HOSTS: "127.0.0.1",
				OPENAI_API_KEY: STAND_IN_KEY,
			},
		});
		expect(stderr).toBe("");

		// The streamed answer: deltas, usage, done.
		const lines = stdout.split("\n");
		const streamed = lines.flatMap((line, index) =>
			line.startsWith("event: ") && lines[index + 1]?.startsWith("data: ") ? [{ event: line.slice(7), data: JSON.parse(lines[index + 1].slice(6)) as unknown }] : [],
		);
		expect(streamed.map((frame) => frame.event)).toEqual(["delta", "delta", "delta", "usage", "done"]);
		expect(streamed.filter((frame) => frame.event === "delta").map((frame) => (frame.data as { content: string }).content).join("")).toBe("Hello from the stand-in.");

		// The last line is the assistant's answer, naming the version that served it.
		const answer = JSON.parse(stdout.trim().split("\n").at(-1) as string);
		expect(answer).toMatchObject({ message: { role: "assistant", content: "Your order ships today." }, assistant: { slug: "support", version: 1, environment: "production" } });
		// The stand-in saw the prompt rendered with the caller's variable, and the workspace's key.
		const last = standIn.requests.at(-1);
		expect(last?.headers.authorization).toBe(`Bearer ${STAND_IN_KEY}`);
		expect(JSON.stringify(last?.body.messages)).toContain("You answer customers of Acme in one sentence.");
		// The owner the first command made can sign in to the dashboard with the README's password.
		const signIn = await fetch(`${platform.url}/management/session`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ email: "you@example.com", password: "choose-a-long-password" }),
		});
		expect(signIn.status).toBe(200);
	});
});
