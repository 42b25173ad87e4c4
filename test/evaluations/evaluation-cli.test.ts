import { describe, expect, it } from "vitest";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import { waitForRun, useEvaluationTestbed } from "./evaluation-fixtures";
import { runOperatorCli } from "../helpers/operator-cli";

let platform: TestPlatform;
let workspace: TestWorkspace;

/** The operator CLI as an operator runs it; the test server's inline worker runs what it enqueues. */
async function admin(...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
	const { code, stdout, stderr } = await runOperatorCli(platform.databaseUrl, args);
	return { code, out: JSON.parse(code === 0 ? stdout : stderr) };
}

useEvaluationTestbed((started) => ({ platform, workspace } = started));

describe("evaluation commands of the operator CLI", () => {
	it("create a dataset, add a case, run two versions and compare them", async () => {
		const workspaceId = workspace.workspaceId;
		const dataset = (await admin("evaluation", "dataset", "create", "--workspace", workspaceId, "--name", "Capitals")).out as { id: string };
		const added = await admin("evaluation", "case", "add", "--workspace", workspaceId, "--dataset", dataset.id, "--input", "What is the capital of France?", "--expected", "Paris", "--scorers", '[{"type":"contains"}]');
		expect(added.code).toBe(0);
		const refused = await admin("evaluation", "case", "add", "--workspace", workspaceId, "--dataset", dataset.id, "--input", "x", "--scorers", "not json");
		expect(refused).toEqual({ code: 1, out: { error: { code: "VALIDATION_ERROR", message: "Request failed validation", fields: [{ field: "--scorers", issue: "Must be JSON" }] } } });

		// The use cases are shared: the runs are started in-process, as any transport would, and read back through the CLI.
		const v1 = await startEvaluationRun(platform.operator(), { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 } });
		const v2 = (await admin("evaluation", "run", "start", "--workspace", workspaceId, "--dataset", dataset.id, "--slug", "orbit", "--version", "2")).out as { id: string; status: string };
		expect(v2.status).toBe("queued");
		await waitForRun(() => platform.operator(), workspaceId, v1.id);
		await waitForRun(() => platform.operator(), workspaceId, v2.id);

		const compared = (await admin("evaluation", "run", "get", "--workspace", workspaceId, "--run", v2.id, "--compare", v1.id)).out as { status: string; comparison: { regressedCaseIds: string[] } };
		expect(compared.status).toBe("completed");
		expect(compared.comparison.regressedCaseIds).toEqual([(added.out as { id: string }).id]);
	}, 120_000);
});
