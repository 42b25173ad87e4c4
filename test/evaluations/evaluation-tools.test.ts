import { describe, expect, it } from "vitest";
import { AuditEventSchema } from "../../server/db/entities";
import { createUser } from "../../server/modules/tenancy/create-user";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import { connectAs, type McpSession, userPrincipal } from "../mcp/mcp-helpers";
import { GRADER_MODEL, useEvaluationTestbed } from "./evaluation-fixtures";
import { eventually } from "../knowledge/knowledge-helpers";

type Run = { id: string; status: string; aggregates: { passRate: number; passedCases: number; erroredCases: number; meanScores: Record<string, number> } | null };
type RunWithCases = Run & {
	cases: { caseId: string; result: { status: string; score: number | null; scores: { scorer: string; score: number | null; reasoning: string }[]; traceId: string | null; error: string | null } | null }[];
	comparison: { regressedCaseIds: string[]; improvedCaseIds: string[]; cases: { caseId: string; verdict: string; scoreDifference: number }[] } | null;
};

let platform: TestPlatform;
let workspace: TestWorkspace;

useEvaluationTestbed((started) => ({ platform, workspace } = started));

async function finished(session: McpSession, runId: string): Promise<RunWithCases> {
	return eventually(async () => {
		const run = await session.call<RunWithCases>("get_evaluation_run", { workspaceId: workspace.workspaceId, runId });
		return ["completed", "failed", "cancelled"].includes(run.status) ? run : undefined;
	}, 30_000, `run ${runId}`);
}

describe("the nine evaluation tools", () => {
	it("build a dataset with every scorer, run two versions and read which cases regressed", async () => {
		const { workspaceId } = workspace;
		const member = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] }));
		const dataset = await member.call<{ id: string; caseCount: number }>("create_evaluation_dataset", { workspaceId, name: "Release checks" });
		const add = (args: Record<string, unknown>) => member.call<{ id: string }>("add_evaluation_case", { workspaceId, datasetId: dataset.id, ...args });
		const arithmetic = await add({ input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }, { type: "numeric" }] });
		const capital = await add({ input: "What is the capital of France?", expectedOutput: "Paris", scorers: [{ type: "contains" }] });
		await add({ input: "Give the order as JSON", scorers: [{ type: "json", schema: { type: "object", required: ["id"] } }] });
		await add({ input: "Greet me", scorers: [{ type: "regex", pattern: "^hello", flags: "i" }] });
		const rubric = await add({ input: "Explain refunds", scorers: [{ type: "rubric", criteria: "States the 30-day window.", provider: "openai", model: GRADER_MODEL }] });
		const doomed = await add({ input: "Greet me", scorers: [{ type: "contains", value: "Hello" }] });
		await member.call("delete_evaluation_case", { workspaceId, caseId: doomed.id });
		// A bad scorer is refused before the use case runs, naming the field (bad arguments are a protocol error);
		// what only compiling tells (RE2's syntax, the program's size) is the use case's VALIDATION_ERROR, naming it too.
		expect(await member.fail("add_evaluation_case", { workspaceId, datasetId: dataset.id, input: "x", scorers: [{ type: "regex", pattern: "(\\w)\\1" }] })).toMatch(/Invalid arguments.*Backreferences.*scorers\[0\]\.pattern/);
		expect(await member.fail("add_evaluation_case", { workspaceId, datasetId: dataset.id, input: "x", scorers: [{ type: "regex", pattern: "\\w{1000}" }] })).toMatch(
			/^VALIDATION_ERROR: .*scorers\.0\.pattern: The pattern compiles to \d+ instructions/,
		);

		const listed = await member.call<{ data: { id: string; caseCount: number }[] }>("list_evaluation_datasets", { workspaceId });
		expect(listed.data.find((entry) => entry.id === dataset.id)?.caseCount).toBe(5);
		expect((await member.call<{ cases: unknown[] }>("get_evaluation_dataset", { workspaceId, datasetId: dataset.id })).cases).toHaveLength(5);

		const v1 = await member.call<Run>("run_evaluation", { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 } });
		const v2 = await member.call<Run>("run_evaluation", { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 2 } });
		const [first, second] = [await finished(member, v1.id), await finished(member, v2.id)];
		expect(first.aggregates).toMatchObject({ passRate: 1, passedCases: 5, erroredCases: 0, meanScores: { exact_match: 1, numeric: 1, contains: 1, json: 1, regex: 1, rubric: 0.9 } });
		expect(second.aggregates).toMatchObject({ passRate: 0.8, passedCases: 4, meanScores: { contains: 0 } });
		const rubricResult = first.cases.find((entry) => entry.caseId === rubric.id)?.result;
		expect(rubricResult?.scores[0]).toMatchObject({ scorer: "rubric", score: 0.9, reasoning: "States the 30-day window." });
		// Traced as the user who started the run.
		await platform.services.traces.flush();
		const [trace] = await platform.orm.em.fork().getConnection().execute("select principal_type, principal_id from traces where id = ?", [first.cases.find((entry) => entry.caseId === arithmetic.id)?.result?.traceId]);
		expect(trace).toEqual({ principal_type: "user", principal_id: workspace.userId });

		const compared = await member.call<RunWithCases>("get_evaluation_run", { workspaceId, runId: v2.id, compareToRunId: v1.id });
		expect(compared.comparison?.regressedCaseIds).toEqual([capital.id]);
		expect(compared.comparison?.cases.find((entry) => entry.caseId === capital.id)).toMatchObject({ verdict: "regressed", scoreDifference: -1 });
		expect(compared.comparison?.cases.filter((entry) => entry.verdict === "unchanged")).toHaveLength(4);

		const runs = await member.call<{ data: { id: string }[] }>("list_evaluation_runs", { workspaceId, datasetId: dataset.id });
		expect(runs.data.map((run) => run.id)).toEqual([v2.id, v1.id]);

		expect(await member.call("delete_evaluation_dataset", { workspaceId, datasetId: dataset.id })).toEqual({ id: dataset.id, deleted: true });
		// Past runs stay readable after the dataset is gone.
		expect((await member.call<Run>("get_evaluation_run", { workspaceId, runId: v1.id })).status).toBe("completed");
		await member.close();

		const audit = await platform.orm.em.fork().find(AuditEventSchema, { action: "mcp.run_evaluation", actorId: workspace.userId });
		expect(audit.map((event) => event.outcome)).toEqual(["success", "success"]);
	}, 90_000);

	it("deny by scope, by role and across organizations", async () => {
		const { workspaceId } = workspace;
		const owner = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId }));
		const dataset = await owner.call<{ id: string }>("create_evaluation_dataset", { workspaceId, name: "Guarded" });
		await owner.close();

		const readOnly = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read"] }));
		expect(await readOnly.fail("run_evaluation", { workspaceId, datasetId: dataset.id, target: { kind: "draft", assistantSlug: "orbit" } })).toMatch(/FORBIDDEN.*mcp:write/);
		expect((await readOnly.call<{ data: unknown[] }>("list_evaluation_datasets", { workspaceId })).data.length).toBeGreaterThan(0);
		await readOnly.close();

		const viewer = await createUser(platform.operator(), { email: `viewer-${Date.now()}@example.com`, password: "correct horse battery", organizationId: workspace.organizationId, role: "viewer" });
		const viewerSession = await connectAs(platform, userPrincipal(viewer.userId, { organizationId: workspace.organizationId }));
		expect(await viewerSession.fail("create_evaluation_dataset", { workspaceId, name: "Nope" })).toMatch(/FORBIDDEN.*viewer/);
		expect(await viewerSession.fail("delete_evaluation_dataset", { workspaceId, datasetId: dataset.id })).toMatch(/FORBIDDEN/);
		expect((await viewerSession.call<{ id: string }>("get_evaluation_dataset", { workspaceId, datasetId: dataset.id })).id).toBe(dataset.id);
		await viewerSession.close();

		const stranger = await platform.createWorkspace();
		const outsider = await connectAs(platform, userPrincipal(stranger.userId, { organizationId: stranger.organizationId }));
		expect(await outsider.fail("get_evaluation_dataset", { workspaceId, datasetId: dataset.id })).toMatch(/NOT_FOUND/);
		expect(await outsider.fail("get_evaluation_dataset", { workspaceId: stranger.workspaceId, datasetId: dataset.id })).toMatch(/NOT_FOUND/);
		await outsider.close();
	}, 30_000);
});
