import { describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { answerByRequest, TARGET_MODEL, useEvaluationTestbed } from "../evaluations/evaluation-fixtures";
import { type DashboardSession, signInToDashboard } from "../helpers/dashboard-session";
import { TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { eventually } from "../knowledge/knowledge-helpers";

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;
useEvaluationTestbed((started) => ({ platform, standIn, workspace } = started));

/** The management API of the evaluation pages, as the dashboard calls it with a person's session. */
describe("evaluations over the management API", { timeout: 120_000 }, () => {
	const base = () => `/management/workspaces/${workspace.workspaceId}`;
	const json = async (response: Response) => ({ status: response.status, body: await response.json() });
	const call = async (session: DashboardSession, method: string, path: string, body?: unknown) => json(await session.call(platform.url, method, path, body));
	const finished = (session: DashboardSession, runId: string) =>
		eventually(
			async () => {
				const run = await call(session, "GET", `${base()}/evaluation-runs/${runId}`);
				return ["completed", "failed", "cancelled"].includes(run.body.status) ? run.body : undefined;
			},
			30_000,
			`run ${runId} to finish`,
		);

	it("creates a dataset, adds, replaces and deletes cases, runs two versions and compares them: the regressed case is named; every change is audited", async () => {
		standIn.responder = answerByRequest;
		const owner = await signInToDashboard(platform.url, workspace.ownerEmail, TEST_PASSWORD);
		const dataset = await call(owner, "POST", `${base()}/evaluation-datasets`, { name: "  Smoke  ", description: "Two questions" });
		expect(dataset).toMatchObject({ status: 201, body: { name: "Smoke", caseCount: 0 } });
		const datasetPath = `${base()}/evaluation-datasets/${dataset.body.id}`;

		const arithmetic = await call(owner, "POST", `${datasetPath}/cases`, { input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }, { type: "numeric", tolerance: 0.5 }] });
		expect(arithmetic).toMatchObject({ status: 201, body: { input: "What is 2+2?", scorers: [{ type: "exact_match", caseSensitive: true }, { type: "numeric", tolerance: 0.5 }] } });
		const first = await call(owner, "POST", `${datasetPath}/cases`, { input: "What is the capital of France?", expectedOutput: "Lyon", scorers: [{ type: "contains" }] });
		const capital = await call(owner, "PUT", `${datasetPath}/cases/${first.body.id}`, { input: "What is the capital of France?", expectedOutput: "Paris", scorers: [{ type: "contains" }] });
		expect(capital).toMatchObject({ status: 201, body: { replacesCaseId: first.body.id, expectedOutput: "Paris" } });
		const doomed = await call(owner, "POST", `${datasetPath}/cases`, { input: "Greet me", scorers: [{ type: "regex", pattern: "^hello", flags: "i" }] });
		expect(await call(owner, "DELETE", `${base()}/evaluation-cases/${doomed.body.id}`)).toMatchObject({ status: 200, body: { deleted: true } });
		const details = await call(owner, "GET", datasetPath);
		expect(details.body.cases.map((entry: { id: string }) => entry.id)).toEqual([arithmetic.body.id, capital.body.id]);
		expect((await call(owner, "GET", `${base()}/evaluation-datasets`)).body.data).toEqual([expect.objectContaining({ id: dataset.body.id, caseCount: 2 })]);

		const baseline = await call(owner, "POST", `${datasetPath}/runs`, { target: { kind: "version", assistantSlug: "orbit", version: 1 } });
		expect(baseline).toMatchObject({ status: 201, body: { status: "queued", caseCount: 2, model: TARGET_MODEL } });
		const candidate = await call(owner, "POST", `${datasetPath}/runs`, { target: { kind: "version", assistantSlug: "orbit", version: 2 } });
		expect(await finished(owner, baseline.body.id)).toMatchObject({ status: "completed", aggregates: { passRate: 1 } });
		const done = await finished(owner, candidate.body.id);
		expect(done).toMatchObject({ status: "completed", aggregates: { passRate: 0.5, meanScores: { contains: 0, exact_match: 1, numeric: 1 } } });
		const capitalResult = done.cases.find((entry: { caseId: string }) => entry.caseId === capital.body.id).result;
		expect(capitalResult).toMatchObject({ output: "I am not sure.", passed: false, traceId: expect.stringMatching(/^trace_/), scores: [{ scorer: "contains", score: 0 }] });

		const compared = await call(owner, "GET", `${base()}/evaluation-runs/${candidate.body.id}?compareToRunId=${baseline.body.id}`);
		expect(compared.body.comparison).toMatchObject({ regressedCaseIds: [capital.body.id], improvedCaseIds: [], aggregateDifference: { passRate: -0.5 } });
		const runs = await call(owner, "GET", `${base()}/evaluation-runs?datasetId=${dataset.body.id}`);
		expect(runs.body.data.map((run: { id: string }) => run.id)).toEqual([candidate.body.id, baseline.body.id]);

		const audited = await eventually(
			async () => {
				const rows: { action: string }[] = await platform.orm.em
					.fork()
					.getConnection()
					.execute("select action from audit_events where workspace = ? and actor_id = ? and outcome = 'success' order by created_at, id", [workspace.workspaceId, workspace.userId]);
				const actions = rows.map((row) => row.action);
				return actions.filter((action) => action.includes("Evaluation")).length >= 7 ? actions : undefined;
			},
			10_000,
			"the audit rows",
		);
		expect(audited).toEqual(
			expect.arrayContaining(["createEvaluationDataset", "addEvaluationCase", "replaceEvaluationCase", "deleteEvaluationCase", "startEvaluationRun"]),
		);
	});

	it("names the offending field of a refused case; a viewer reads everything but changes nothing, cancelling a run included; its owner cancels it", async () => {
		const owner = await signInToDashboard(platform.url, workspace.ownerEmail, TEST_PASSWORD);
		const dataset = await call(owner, "POST", `${base()}/evaluation-datasets`, { name: "Rules" });
		const datasetPath = `${base()}/evaluation-datasets/${dataset.body.id}`;
		const badRegex = await call(owner, "POST", `${datasetPath}/cases`, { input: "x", scorers: [{ type: "regex", pattern: "(\\w)\\1" }] });
		expect(badRegex).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", fields: [{ field: "scorers.0.pattern", issue: expect.stringMatching(/^Backreferences/) }] } });
		const neither = await call(owner, "POST", `${datasetPath}/cases`, { scorers: [{ type: "numeric", tolerance: -1 }] });
		expect(neither.status).toBe(400);
		expect(neither.body.fields.map((field: { field: string }) => field.field).sort()).toEqual(["input", "scorers[0].tolerance"]);
		const kept = await call(owner, "POST", `${datasetPath}/cases`, { input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }] });

		const viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: workspace.organizationId, role: "viewer" });
		const viewer = await signInToDashboard(platform.url, viewerEmail, TEST_PASSWORD);
		expect((await call(viewer, "GET", datasetPath)).body.cases).toHaveLength(1);
		expect((await call(viewer, "GET", `${base()}/evaluation-runs`)).status).toBe(200);
		const refusals = [
			await call(viewer, "POST", `${base()}/evaluation-datasets`, { name: "Mine" }),
			await call(viewer, "POST", `${datasetPath}/cases`, { input: "x", scorers: [{ type: "exact_match" }] }),
			await call(viewer, "PUT", `${datasetPath}/cases/${kept.body.id}`, { input: "y", scorers: [{ type: "exact_match" }] }),
			await call(viewer, "DELETE", `${base()}/evaluation-cases/${kept.body.id}`),
			await call(viewer, "POST", `${datasetPath}/runs`, { target: { kind: "draft", assistantSlug: "orbit" } }),
			await call(viewer, "DELETE", datasetPath),
		];
		expect(refusals.map((refusal) => [refusal.status, refusal.body.code])).toEqual(Array(6).fill([403, "FORBIDDEN"]));

		// A run held in flight: the viewer cannot cancel it, its owner can; the reason names who did.
		let release = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		standIn.responder = (request) => {
			const answer = answerByRequest(request);
			return answer?.kind === "completion" ? { ...answer, holdUntil: held } : answer;
		};
		const run = await call(owner, "POST", `${datasetPath}/runs`, { target: { kind: "draft", assistantSlug: "orbit" } });
		expect(await call(viewer, "POST", `${base()}/evaluation-runs/${run.body.id}/cancel`)).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
		const cancelled = await call(owner, "POST", `${base()}/evaluation-runs/${run.body.id}/cancel`);
		release();
		standIn.responder = answerByRequest;
		expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled", failureReason: `Cancelled by user ${workspace.userId}` } });
		expect((await call(owner, "GET", datasetPath)).body.cases.map((entry: { id: string }) => entry.id)).toEqual([kept.body.id]);
		expect((await call(owner, "DELETE", datasetPath)).body).toEqual({ id: dataset.body.id, deleted: true });
		expect((await call(owner, "GET", datasetPath)).status).toBe(404);
	});
});
