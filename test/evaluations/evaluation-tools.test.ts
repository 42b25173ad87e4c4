import { describe, expect, it } from "vitest";
import { AuditEventSchema } from "../../server/db/entities";
import { updateMemberRole } from "../../server/modules/members/update-member-role";
import { removeMember } from "../../server/modules/members/remove-member";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import type { ProviderStandIn, RecordedRequest, ScriptedAnswer } from "../helpers/provider-stand-in";
import { connectAs, type McpSession, userPrincipal } from "../mcp/mcp-helpers";
import { answerByRequest, connectedUser, GRADER_MODEL, TARGET_MODEL, useEvaluationTestbed } from "./evaluation-fixtures";
import { eventually } from "../knowledge/knowledge-helpers";

type Run = { id: string; status: string; failureReason: string | null; aggregates: { passRate: number; passedCases: number; erroredCases: number; meanScores: Record<string, number> } | null };
type RunWithCases = Run & {
	cases: { caseId: string; result: { status: string; score: number | null; scores: { scorer: string; score: number | null; reasoning: string }[]; traceId: string | null; error: string | null } | null }[];
	comparison: { regressedCaseIds: string[]; improvedCaseIds: string[]; cases: { caseId: string; verdict: string; scoreDifference: number }[] } | null;
};

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;

useEvaluationTestbed((started) => ({ platform, standIn, workspace } = started));

function lastMessage(request: RecordedRequest): string {
	const messages = (request.body.messages as { role: string; content: string }[]) ?? [];
	return messages[messages.length - 1]?.content ?? "";
}

/**
 * A dataset of `count` cases whose generations the stand-in holds until `release()`: a run of it
 * with concurrency 1 is "running" with its first case in flight for as long as a test needs.
 */
async function heldDataset(session: McpSession, label: string, count = 3) {
	const { workspaceId } = workspace;
	const dataset = await session.call<{ id: string }>("create_evaluation_dataset", { workspaceId, name: label });
	for (let number = 1; number <= count; number++) {
		await session.call("add_evaluation_case", { workspaceId, datasetId: dataset.id, input: `${label} ${number}`, scorers: [{ type: "contains", value: "held" }] });
	}
	let release = () => {};
	const held = new Promise<void>((resolve) => (release = resolve));
	const previous = standIn.responder;
	standIn.responder = (request): ScriptedAnswer | undefined =>
		String(request.body.model) === TARGET_MODEL && lastMessage(request).startsWith(`${label} `) ? { kind: "completion", content: "held answer", holdUntil: held } : (previous ?? answerByRequest)(request);
	const generations = () => standIn.requests.filter((request) => lastMessage(request).startsWith(`${label} `)).length;
	return { dataset, release, generations };
}

/** Waits for the run's worker to have let go of it: a stopped run's aggregates are written last. */
async function settled(session: McpSession, runId: string): Promise<RunWithCases> {
	return eventually(async () => {
		const run = await session.call<RunWithCases>("get_evaluation_run", { workspaceId: workspace.workspaceId, runId });
		return run.aggregates !== null ? run : undefined;
	}, 30_000, `run ${runId} to settle`);
}

async function finished(session: McpSession, runId: string): Promise<RunWithCases> {
	return eventually(async () => {
		const run = await session.call<RunWithCases>("get_evaluation_run", { workspaceId: workspace.workspaceId, runId });
		return ["completed", "failed", "cancelled"].includes(run.status) ? run : undefined;
	}, 30_000, `run ${runId}`);
}

describe("the evaluation tools", () => {
	it("build a dataset with every scorer, run two versions and read which cases regressed", async () => {
		const { workspaceId } = workspace;
		const member = await connectAs(platform, await connectedUser(platform, workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] }));
		const dataset = await member.call<{ id: string; caseCount: number }>("create_evaluation_dataset", { workspaceId, name: "Release checks" });
		const add = (args: Record<string, unknown>) => member.call<{ id: string }>("add_evaluation_case", { workspaceId, datasetId: dataset.id, ...args });
		const arithmetic = await add({ input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }, { type: "numeric" }] });
		const capital = await add({ input: "What is the capital of France?", expectedOutput: "Paris", scorers: [{ type: "contains" }] });
		await add({ input: "Give the order as JSON", scorers: [{ type: "json", schema: { type: "object", required: ["id"] } }] });
		await add({ input: "Greet me", scorers: [{ type: "regex", pattern: "^hello", flags: "i" }] });
		const rubric = await add({ input: "Explain refunds", scorers: [{ type: "rubric", criteria: "States the 30-day window.", provider: "openai", model: GRADER_MODEL }] });
		const doomed = await add({ input: "Greet me", scorers: [{ type: "contains", value: "Hello" }] });
		await member.call("delete_evaluation_case", { workspaceId, caseId: doomed.id });
		// A pattern RE2 cannot run, and what only compiling tells (RE2's syntax, the program's size), are the
		// use case's VALIDATION_ERROR, naming the field, whichever transport brought the case.
		expect(await member.fail("add_evaluation_case", { workspaceId, datasetId: dataset.id, input: "x", scorers: [{ type: "regex", pattern: "(\\w)\\1" }] })).toMatch(/^VALIDATION_ERROR: .*scorers\.0\.pattern: Backreferences/);
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
	it("cancel_evaluation_run stops a running run; a viewer is refused (FORBIDDEN), another organization does not see it (NOT_FOUND)", async () => {
		const { workspaceId } = workspace;
		const member = await connectAs(platform, await connectedUser(platform, workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] }));
		const { dataset, release, generations } = await heldDataset(member, "Cancel me");
		try {
			const run = await member.call<Run>("run_evaluation", { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: 1 });
			await eventually(async () => generations() === 1, 30_000, "the first case at the provider");

			const viewer = await createUser(platform.operator(), { email: `viewer-cancel-${Date.now()}@example.com`, password: "correct horse battery", organizationId: workspace.organizationId, role: "viewer" });
			const viewerSession = await connectAs(platform, userPrincipal(viewer.userId, { organizationId: workspace.organizationId }));
			expect(await viewerSession.fail("cancel_evaluation_run", { workspaceId, runId: run.id })).toMatch(/^FORBIDDEN: .*viewer/);
			await viewerSession.close();
			const stranger = await platform.createWorkspace();
			const outsider = await connectAs(platform, userPrincipal(stranger.userId, { organizationId: stranger.organizationId }));
			expect(await outsider.fail("cancel_evaluation_run", { workspaceId, runId: run.id })).toMatch(/^NOT_FOUND/);
			expect(await outsider.fail("cancel_evaluation_run", { workspaceId: stranger.workspaceId, runId: run.id })).toMatch(/^NOT_FOUND/);
			await outsider.close();
			expect((await member.call<Run>("get_evaluation_run", { workspaceId, runId: run.id })).status).toBe("running");

			const cancelled = await member.call<Run>("cancel_evaluation_run", { workspaceId, runId: run.id });
			expect(cancelled).toMatchObject({ id: run.id, status: "cancelled", failureReason: `Cancelled by user ${workspace.userId}` });
			release();
			const final = await settled(member, run.id);
			// The case in flight finished and is kept; the other two were never generated.
			expect(final).toMatchObject({ status: "cancelled", failureReason: `Cancelled by user ${workspace.userId}`, aggregates: { caseCount: 3, scoredCases: 1 } });
			expect(generations()).toBe(1);
			expect(await member.fail("cancel_evaluation_run", { workspaceId, runId: run.id })).toMatch(/^INVALID_REQUEST: The run is cancelled/);
			await member.close();

			const audit = await platform.orm.em.fork().find(AuditEventSchema, { action: "mcp.cancel_evaluation_run" }, { orderBy: { createdAt: "asc" } });
			// Audited like every tool: each call, allowed or refused.
			expect(audit.map((event) => event.actorId)).toEqual([viewer.userId, stranger.userId, stranger.userId, workspace.userId, workspace.userId]);
			expect(audit[0].outcome).toBe("denied");
			expect(audit[3].outcome).toBe("success");
		} finally {
			release();
		}
	}, 60_000);

	const accessChanges = [
		{ change: "its starter is removed from the organization", reason: /^Cancelled: The user who started this run was removed from the workspace's organization; cases not run yet were skipped$/ },
		{ change: "its starter is lowered to viewer", reason: /^Cancelled: The role of the user who started this run is now viewer; running it needs member or above; cases not run yet/ },
		{ change: "the connection it was started with is revoked", reason: /^Cancelled: The connection this run was started with was revoked; cases not run yet/ },
	] as const;
	for (const { change, reason } of accessChanges) {
		it(`stops a run when ${change} mid-run: the remaining cases are not generated and the run reads cancelled, saying why`, async () => {
			const { workspaceId, organizationId } = workspace;
			const starter = await createUser(platform.operator(), { email: `starter-${Date.now()}@example.com`, password: "correct horse battery", organizationId, role: "member" });
			const principal = await connectedUser(platform, starter.userId, { organizationId, scopes: ["mcp:read", "mcp:write"] });
			const session = await connectAs(platform, principal);
			const { dataset, release, generations } = await heldDataset(session, `Held when ${change}`);
			try {
				const run = await session.call<Run>("run_evaluation", { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: 1 });
				await eventually(async () => generations() === 1, 30_000, "the first case at the provider");
				if (change === "its starter is removed from the organization") await removeMember(platform.operator(), { organizationId, userId: starter.userId });
				if (change === "its starter is lowered to viewer") await updateMemberRole(platform.operator(), { organizationId, userId: starter.userId, role: "viewer" });
				if (change === "the connection it was started with is revoked") await revokeConnection(platform.operator(), { id: principal.connectionId });
				release();

				const owner = await connectAs(platform, userPrincipal(workspace.userId, { organizationId }));
				const final = await settled(owner, run.id);
				await owner.close();
				expect(final.status).toBe("cancelled");
				expect(final.failureReason).toMatch(reason);
				expect(final.aggregates).toMatchObject({ caseCount: 3, scoredCases: 1 });
				expect(generations()).toBe(1);
			} finally {
				release();
				await session.close();
			}
		}, 60_000);
	}
});
