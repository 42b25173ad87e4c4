import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, type RecordedRequest, startProviderStandIn } from "../helpers/provider-stand-in";
import { startWorkerProcess, stopWorkerProcess } from "../helpers/worker-process";
import { eventually } from "../knowledge/knowledge-helpers";
import { assistantWithTwoVersions, waitForRun } from "./evaluation-fixtures";

const CASES = 20;
/** Cases the first worker finishes; the next ones are held at the stand-in until it is killed. */
const FINISHED_BEFORE_KILL = 8;
const CONCURRENCY = 2;
const LEASE_SECONDS = 3;

function questionOf(request: RecordedRequest): string {
	const messages = (request.body.messages as { role: string; content: string }[]) ?? [];
	return [...messages].reverse().find((message) => message.role === "user")?.content ?? "";
}

describe("an evaluation worker killed mid-run", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let standIn: ProviderStandIn;
	const workers: ChildProcess[] = [];
	let releaseHeldAnswers: () => void = () => {};

	beforeAll(async () => {
		// No in-process worker and no sweeper here: only the spawned workers run and take over runs.
		platform = await startTestPlatform({ evaluations: { worker: "off" } });
		workspace = await platform.createWorkspace();
		standIn = await startProviderStandIn();
		let holding = true;
		const held = new Promise<void>((resolve) => {
			releaseHeldAnswers = () => {
				holding = false;
				resolve();
			};
		});
		standIn.responder = (request) => {
			const number = Number(/^Question (\d+)$/.exec(questionOf(request))?.[1]);
			// Until the first worker is killed, no answer comes after the finished cases: the kill lands with them in flight.
			if (number > FINISHED_BEFORE_KILL && holding) {
				return { kind: "completion", content: `Answer ${number}`, usage: { prompt_tokens: 10, completion_tokens: 3 }, holdUntil: held };
			}
			return { kind: "completion", content: `Answer ${number}`, usage: { prompt_tokens: 10, completion_tokens: 3 } };
		};
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: standIn.baseUrl });
		await assistantWithTwoVersions(() => platform.operator(), workspace.workspaceId);
	});
	afterAll(async () => {
		releaseHeldAnswers();
		for (const worker of workers) await stopWorkerProcess(worker, "SIGKILL");
		await standIn?.close();
		await platform?.stop();
	});

	it("is taken over by another worker, which scores every case once and generates none of the finished ones again", async () => {
		const { workspaceId } = workspace;
		const operator = () => platform.operator();
		const dataset = await createEvaluationDataset(operator(), { workspaceId, name: "Numbered questions" });
		for (let number = 1; number <= CASES; number += 1) {
			await addEvaluationCase(operator(), { workspaceId, datasetId: dataset.id, input: `Question ${number}`, expectedOutput: `Answer ${number}`, scorers: [{ type: "exact_match" }] });
		}
		const workerSettings = { EVALUATION_LEASE_SECONDS: String(LEASE_SECONDS) };
		const first = startWorkerProcess(platform, workerSettings);
		workers.push(first);
		const run = await startEvaluationRun(operator(), { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: CONCURRENCY });

		// The first cases are scored; the next CONCURRENCY wait at the stand-in for an answer.
		const connection = platform.orm.em.fork().getConnection();
		const scoredCount = async () => ((await connection.execute("select count(*)::int as count from evaluation_results where run_id = ?", [run.id])) as { count: number }[])[0].count;
		await eventually(async () => standIn.requests.length === FINISHED_BEFORE_KILL + CONCURRENCY && (await scoredCount()) === FINISHED_BEFORE_KILL, 90_000, "the first worker to hold its last cases");

		// A case outlasting the lease keeps it: the live worker renews it while it waits, so it is not taken over.
		const heldSince = Math.max(...standIn.requests.map((request) => request.receivedAt));
		const leaseOf = async () =>
			((await connection.execute("select lease_token, extract(epoch from lease_expires_at) * 1000 as expires_at, attempts from evaluation_runs where id = ?", [run.id])) as { lease_token: string | null; expires_at: string; attempts: number }[])[0];
		const { lease_token: heldToken } = await leaseOf();
		expect(heldToken).not.toBeNull();
		await eventually(
			async () => {
				const lease = await leaseOf();
				// Same claim (a sweeper re-queueing the run would clear the token), pushed out past what the last check-in gave.
				return lease.lease_token === heldToken && lease.attempts === 1 && Number(lease.expires_at) > heldSince + LEASE_SECONDS * 1000 + 500;
			},
			LEASE_SECONDS * 3000,
			"the worker to renew its lease while a case is in flight",
		);
		expect(standIn.requests.length).toBe(FINISHED_BEFORE_KILL + CONCURRENCY);

		await stopWorkerProcess(first, "SIGKILL");
		releaseHeldAnswers();
		workers.push(startWorkerProcess(platform, workerSettings));
		const finished = await waitForRun(operator, workspaceId, run.id, ["completed", "failed", "cancelled"], 90_000);

		expect(finished.status).toBe("completed");
		const rows = (await connection.execute("select evaluation_case_id, count(*)::int as count from evaluation_results where run_id = ? group by evaluation_case_id", [run.id])) as { evaluation_case_id: string; count: number }[];
		expect(rows.length).toBe(CASES);
		expect(rows.every((row) => row.count === 1)).toBe(true);
		expect(new Set(rows.map((row) => row.evaluation_case_id))).toEqual(new Set(finished.cases.map((entry) => entry.caseId)));
		expect(finished.aggregates).toMatchObject({ caseCount: CASES, scoredCases: CASES, passedCases: CASES, failedCases: 0, erroredCases: 0, passRate: 1, totalTokens: CASES * 13 });

		// Generated once each, but for the cases in flight at the kill: their answers never arrived, so they ran again.
		const requestsByQuestion = new Map<string, number>();
		for (const request of standIn.requests) requestsByQuestion.set(questionOf(request), (requestsByQuestion.get(questionOf(request)) ?? 0) + 1);
		const expected = new Map(Array.from({ length: CASES }, (_, index) => [`Question ${index + 1}`, index + 1 > FINISHED_BEFORE_KILL && index + 1 <= FINISHED_BEFORE_KILL + CONCURRENCY ? 2 : 1]));
		expect(requestsByQuestion).toEqual(expected);
		const [{ attempts }] = (await connection.execute("select attempts from evaluation_runs where id = ?", [run.id])) as { attempts: number }[];
		expect(attempts).toBe(2);
	}, 240_000);
});
