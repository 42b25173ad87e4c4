import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, type RecordedRequest, startProviderStandIn } from "../helpers/provider-stand-in";
import { eventually } from "../knowledge/knowledge-helpers";
import { assistantWithTwoVersions, waitForRun } from "./evaluation-fixtures";

const SLOW_RUNS = 6;

function lastMessage(request: RecordedRequest): string {
	const messages = (request.body.messages as { role: string; content: string }[]) ?? [];
	return messages[messages.length - 1]?.content ?? "";
}

describe("evaluation runs of several workspaces", () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;
	let busy: TestWorkspace;
	let other: TestWorkspace;
	let releaseSlowAnswers = () => {};

	beforeAll(async () => {
		// Two workers in this process, at most one run per workspace at a time (the defaults).
		platform = await startTestPlatform({ evaluations: { workerConcurrency: 2, runsPerWorkspace: 1 } });
		standIn = await startProviderStandIn();
		const slowAnswers = new Promise<void>((resolve) => (releaseSlowAnswers = resolve));
		// Workspace A's cases are slow: their answers are held until the test lets them go.
		standIn.responder = (request) => ({ kind: "completion", content: "An answer", holdUntil: lastMessage(request).startsWith("Slow") ? slowAnswers : undefined });
		busy = await platform.createWorkspace();
		other = await platform.createWorkspace();
		for (const workspace of [busy, other]) {
			await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: standIn.baseUrl });
			await assistantWithTwoVersions(() => platform.operator(), workspace.workspaceId);
		}
	});
	afterAll(async () => {
		releaseSlowAnswers();
		await standIn?.close();
		await platform?.stop();
	});

	async function datasetOf(workspace: TestWorkspace, prefix: string): Promise<string> {
		const dataset = await createEvaluationDataset(platform.operator(), { workspaceId: workspace.workspaceId, name: prefix });
		for (const number of [1, 2]) {
			await addEvaluationCase(platform.operator(), { workspaceId: workspace.workspaceId, datasetId: dataset.id, input: `${prefix} ${number}`, scorers: [{ type: "contains", value: "answer" }] });
		}
		return dataset.id;
	}

	const start = (workspace: TestWorkspace, datasetId: string) =>
		startEvaluationRun(platform.operator(), { workspaceId: workspace.workspaceId, datasetId, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: 1 });

	it("start and finish another workspace's run while one workspace's many slow runs, queued first, hold their generations", async () => {
		const slowDataset = await datasetOf(busy, "Slow");
		const quickDataset = await datasetOf(other, "Quick");
		const slowRuns = [];
		for (let index = 0; index < SLOW_RUNS; index++) slowRuns.push(await start(busy, slowDataset));
		const slowGenerations = () => standIn.requests.filter((request) => lastMessage(request).startsWith("Slow")).length;
		await eventually(async () => slowGenerations() >= 1, 30_000, "workspace A's first case at the provider");

		const quick = await start(other, quickDataset);
		const finished = await waitForRun(() => platform.operator(), other.workspaceId, quick.id, ["completed", "failed", "cancelled"], 30_000);
		expect(finished).toMatchObject({ status: "completed", aggregates: { passedCases: 2 } });

		// Workspace A held one worker the whole time, its other runs waiting their turn; none of its answers came.
		const statuses = async () =>
			((await platform.orm.em.fork().getConnection().execute("select status, count(*)::int as count from evaluation_runs where workspace_id = ? group by status order by status", [busy.workspaceId])) as {
				status: string;
				count: number;
			}[]).map((row) => `${row.status}: ${row.count}`);
		expect(await statuses()).toEqual(["queued: 5", "running: 1"]);
		expect(slowGenerations()).toBe(1);

		releaseSlowAnswers();
		for (const run of slowRuns) expect((await waitForRun(() => platform.operator(), busy.workspaceId, run.id, ["completed", "failed", "cancelled"], 60_000)).status).toBe("completed");
	}, 120_000);
});
