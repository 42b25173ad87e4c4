import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import { startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, TEST_EGRESS, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, parseSseFrames, startProviderStandIn } from "../helpers/provider-stand-in";
import { assistantWithTwoVersions } from "../evaluations/evaluation-fixtures";
import { eventually } from "../knowledge/knowledge-helpers";
import { executeBody, workspaceWithCredential } from "./runtime-fixtures";

const GRACE_MS = 1_000;

let platform: TestPlatform;
let standIn: ProviderStandIn;

beforeAll(async () => {
	// Only the instances a test starts and stops work evaluation runs.
	platform = await startTestPlatform({ evaluations: { worker: "off" } });
	standIn = await startProviderStandIn();
});
beforeEach(() => standIn.reset());
afterAll(async () => {
	await standIn?.close();
	await platform?.stop();
});

/** An instance of its own over the test platform's database, to be stopped by the test. */
const startInstance = () =>
	startPlatform({ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, port: 0, host: "127.0.0.1", logger: createLogger("silent"), http: { shutdownGraceMs: GRACE_MS }, egress: TEST_EGRESS });

/** A generation of the default body, through an instance of the test's own. */
const generate = (baseUrl: string, path: "/runtime/execute" | "/runtime/stream", apiKey: string) =>
	fetch(`${baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(executeBody()) });

async function tracesOf(workspaceId: string): Promise<{ kind: string; streamed: boolean; output: string; error_code: string | null }[]> {
	return platform.orm.em.fork().getConnection().execute("select kind, streamed, output, error_code from traces where workspace = ? order by created_at", [workspaceId]);
}

describe("stopping a server", () => {
	it("ends a stream still running after the grace period with a retryable error event, records its trace, and stops soon after", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		// The provider sends one delta, then nothing: this stream would hold the server for ever.
		standIn.script({ kind: "completion", content: ["partial ", "never sent"], hangAfterChunks: 1 });
		const response = await generate(instance.url, "/runtime/stream", workspace.apiKey);
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
		expect(await tracesOf(workspace.workspaceId)).toEqual([expect.objectContaining({ streamed: true, output: "partial ", error_code: "INTERNAL_ERROR" })]);
	});

	it("answers a generation still waiting on its provider after the grace period with 503 INTERNAL_ERROR saying to retry", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		standIn.script({ kind: "hang" });
		const arrived = standIn.nextRequest();
		const answer = generate(instance.url, "/runtime/execute", workspace.apiKey);
		await arrived;
		await instance.close();
		const response = await answer;
		expect(response.status).toBe(503);
		expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("server is stopping") });
		expect(await tracesOf(workspace.workspaceId)).toEqual([expect.objectContaining({ streamed: false, output: "", error_code: "INTERNAL_ERROR" })]);
	});

	it("lets a request in flight finish within the grace period", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const instance = await startInstance();
		let release = () => {};
		standIn.script({ kind: "completion", content: "Finished while stopping", holdUntil: new Promise<void>((resolve) => (release = resolve)) });
		const arrived = standIn.nextRequest();
		const answer = generate(instance.url, "/runtime/execute", workspace.apiKey);
		await arrived;
		const stopped = instance.close();
		release();
		const response = await answer;
		expect(response.status).toBe(200);
		expect(await response.json()).toMatchObject({ message: { content: "Finished while stopping" } });
		await stopped;
		expect(await tracesOf(workspace.workspaceId)).toEqual([expect.objectContaining({ streamed: false, output: "Finished while stopping", error_code: null })]);
	});

	it("lets an evaluation run in flight finish its cases, and traces every one, before the trace writer closes", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await assistantWithTwoVersions(() => platform.operator(), workspace.workspaceId);
		const dataset = await createEvaluationDataset(platform.operator(), { workspaceId: workspace.workspaceId, name: "Shutdown" });
		for (const number of [1, 2, 3]) {
			await addEvaluationCase(platform.operator(), { workspaceId: workspace.workspaceId, datasetId: dataset.id, input: `Question ${number}`, expectedOutput: `Answer ${number}`, scorers: [{ type: "exact_match" }] });
		}
		// The first case is held at the provider until the instance has begun to stop; the other two come after it.
		let release = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		standIn.responder = (request) => {
			const messages = request.body.messages as { role: string; content: string }[];
			const number = /^Question (\d+)$/.exec(messages[messages.length - 1].content)?.[1];
			return { kind: "completion", content: `Answer ${number}`, holdUntil: number === "1" ? held : undefined };
		};
		const instance = await startInstance();
		const run = await startEvaluationRun(platform.operator(), { workspaceId: workspace.workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: 1 });
		await eventually(async () => standIn.requests.length === 1 || undefined, 30_000, "the first case at the provider");

		const stopped = instance.close();
		release();
		await stopped;

		const [{ status }] = await platform.orm.em.fork().getConnection().execute("select status from evaluation_runs where id = ?", [run.id]);
		expect(status).toBe("completed");
		const traces = await tracesOf(workspace.workspaceId);
		expect(traces.map((trace) => trace.output).sort()).toEqual(["Answer 1", "Answer 2", "Answer 3"]);
		expect(traces.every((trace) => trace.error_code === null)).toBe(true);
	});
});
