import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, parseSseFrames, startProviderStandIn } from "../helpers/provider-stand-in";
import { executeBody, workspaceWithCredential } from "./runtime-fixtures";

const GRACE_MS = 1_000;

let platform: TestPlatform;
let standIn: ProviderStandIn;

beforeAll(async () => {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
});
afterAll(async () => {
	await standIn?.close();
	await platform?.stop();
});

/** An instance of its own over the test platform's database, to be stopped by the test. */
const startInstance = () =>
	startPlatform({ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, port: 0, host: "127.0.0.1", logger: createLogger("silent"), http: { shutdownGraceMs: GRACE_MS } });

async function tracesOf(workspaceId: string): Promise<{ streamed: boolean; output: string; error_code: string | null }[]> {
	return platform.orm.em.fork().getConnection().execute("select streamed, output, error_code from traces where workspace = ? order by created_at", [workspaceId]);
}

describe("stopping a server", () => {
	it("ends a stream still running after the grace period with a retryable error event, records its trace, and stops soon after", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		// The provider sends one delta, then nothing: this stream would hold the server for ever.
		standIn.script({ kind: "completion", content: ["partial ", "never sent"], hangAfterChunks: 1 });
		const response = await fetch(`${instance.url}/runtime/stream`, {
			method: "POST",
			headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
			body: JSON.stringify(executeBody()),
		});
		expect(response.status).toBe(200);
		const body = response.text();

		const stopping = Date.now();
		await instance.close();
		const stoppedAfterMs = Date.now() - stopping;
		expect(stoppedAfterMs).toBeGreaterThanOrEqual(GRACE_MS - 50);
		// A coarse bound: the grace period, then moments to end the generation and write its trace.
		expect(stoppedAfterMs).toBeLessThan(GRACE_MS + 10_000);

		const frames = parseSseFrames(await body);
		expect(frames.filter((frame) => frame.event === "delta").map((frame) => frame.data)).toEqual([{ content: "partial " }]);
		expect(frames.at(-1)).toEqual({
			event: "error",
			data: expect.objectContaining({ code: "INTERNAL_ERROR", retryable: true, message: expect.stringContaining("server is stopping") }),
		});
		expect(frames.some((frame) => frame.event === "done")).toBe(false);
		// Written before the instance's last flush, not lost with it.
		expect(await tracesOf(workspace.workspaceId)).toEqual([{ streamed: true, output: "partial ", error_code: "INTERNAL_ERROR" }]);
	});

	it("answers a generation still waiting on its provider after the grace period with 503 INTERNAL_ERROR saying to retry", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		standIn.script({ kind: "hang" });
		const arrived = standIn.nextRequest();
		const answer = fetch(`${instance.url}/runtime/execute`, {
			method: "POST",
			headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
			body: JSON.stringify(executeBody()),
		});
		await arrived;
		await instance.close();
		const response = await answer;
		expect(response.status).toBe(503);
		expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("server is stopping") });
		expect(await tracesOf(workspace.workspaceId)).toEqual([{ streamed: false, output: "", error_code: "INTERNAL_ERROR" }]);
	});

	it("lets a request in flight finish within the grace period", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		let release = () => {};
		standIn.script({ kind: "completion", content: "Finished while stopping", holdUntil: new Promise<void>((resolve) => (release = resolve)) });
		const arrived = standIn.nextRequest();
		const answer = fetch(`${instance.url}/runtime/execute`, {
			method: "POST",
			headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
			body: JSON.stringify(executeBody()),
		});
		await arrived;
		const stopped = instance.close();
		release();
		const response = await answer;
		expect(response.status).toBe(200);
		expect(await response.json()).toMatchObject({ message: { content: "Finished while stopping" } });
		await stopped;
		expect(await tracesOf(workspace.workspaceId)).toEqual([{ streamed: false, output: "Finished while stopping", error_code: null }]);
	});
});
