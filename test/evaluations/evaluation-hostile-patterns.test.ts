import { describe, expect, it } from "vitest";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import type { ProviderStandIn, RecordedRequest } from "../helpers/provider-stand-in";
import { eventually } from "../knowledge/knowledge-helpers";
import { TARGET_MODEL, useEvaluationTestbed, waitForRun } from "./evaluation-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;

useEvaluationTestbed((started) => ({ platform, standIn, workspace } = started));

const CASES = 1_000;

/**
 * Patterns that backtrack exponentially (or as a high power of the length) in JavaScript's
 * engine on the outputs below, with what each output must score: the outputs are built so the
 * answer is known without running any regular expression.
 */
const HOSTILE = [
	{ pattern: "(a|aa)*$", matches: { as: true, asThenXs: true, xsThenY: true } },
	{ pattern: "^(a|aa)*$", matches: { as: true, asThenXs: false, xsThenY: false } },
	{ pattern: "^(a|a)*$", matches: { as: true, asThenXs: false, xsThenY: false } },
	{ pattern: "(x+x+)+y", matches: { as: false, asThenXs: false, xsThenY: true } },
	{ pattern: "^(\\w+\\s?)*$", matches: { as: true, asThenXs: false, xsThenY: true } },
	{ pattern: "(.*a){12}", matches: { as: true, asThenXs: true, xsThenY: false } },
] as const;

type OutputKind = keyof (typeof HOSTILE)[number]["matches"];

/**
 * Long outputs, each the worst case of some of the patterns: 10,000 characters or so, where
 * JavaScript's engine gives up on these patterns from 30 characters or so.
 */
function outputOf(number: number): { kind: OutputKind; text: string } {
	if (number % 3 === 0) return { kind: "as", text: "a".repeat(10_000) };
	if (number % 3 === 1) return { kind: "asThenXs", text: `${"a".repeat(8_000)}${"x".repeat(2_000)}!` };
	return { kind: "xsThenY", text: `${"x".repeat(10_000)}y` };
}

function caseNumber(request: RecordedRequest): number {
	const messages = (request.body.messages as { role: string; content: string }[]) ?? [];
	return Number(/^Case (\d+)$/.exec(messages[messages.length - 1]?.content ?? "")?.[1]);
}

/** Polls /healthz one request after another until stopped; keeps the slowest answer. */
function pollHealth(): { stop(): Promise<{ slowestMs: number; answers: number; failures: number }> } {
	let running = true;
	let slowestMs = 0;
	let answers = 0;
	let failures = 0;
	const loop = (async () => {
		while (running) {
			const started = performance.now();
			const response = await fetch(`${platform.url}/healthz`).catch(() => null);
			await response?.arrayBuffer();
			slowestMs = Math.max(slowestMs, performance.now() - started);
			answers++;
			if (response?.status !== 200) failures++;
		}
	})();
	return {
		async stop() {
			running = false;
			await loop;
			return { slowestMs, answers, failures };
		},
	};
}

describe("a tenant's pathological regular expressions", () => {
	it("score 1,000 long outputs correctly while /healthz answers within a second throughout", async () => {
		const { workspaceId } = workspace;
		const operator = () => platform.operator();
		standIn.responder = (request) =>
			String(request.body.model) === TARGET_MODEL ? { kind: "completion", content: outputOf(caseNumber(request)).text, usage: { prompt_tokens: 10, completion_tokens: 2_500 } } : undefined;
		const dataset = await createEvaluationDataset(operator(), { workspaceId, name: "Catastrophic backtracking" });
		const scorers = HOSTILE.map(({ pattern }, index) => ({ type: "regex", name: `hostile ${index}`, pattern }));
		for (let number = 0; number < CASES; number++) {
			await addEvaluationCase(operator(), { workspaceId, datasetId: dataset.id, input: `Case ${number}`, scorers });
		}

		const health = pollHealth();
		const started = await startEvaluationRun(operator(), { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "orbit", version: 1 }, concurrency: 16 });
		// Watched through its status alone: reading 1,000 long results every poll would be this test's own load on the server's process.
		const connection = platform.orm.em.fork().getConnection();
		await eventually(
			async () => ["completed", "failed", "cancelled"].includes(((await connection.execute("select status from evaluation_runs where id = ?", [started.id])) as { status: string }[])[0].status),
			600_000,
			"the run to finish",
		);
		const { slowestMs, answers, failures } = await health.stop();
		const run = await waitForRun(operator, workspaceId, started.id);

		expect(run.status).toBe("completed");
		expect(run.aggregates).toMatchObject({ caseCount: CASES, scoredCases: CASES, erroredCases: 0 });
		const wrong: string[] = [];
		for (const entry of run.cases) {
			const number = Number(/^Case (\d+)$/.exec(entry.case?.input ?? "")?.[1]);
			const { kind } = outputOf(number);
			HOSTILE.forEach(({ pattern, matches }, index) => {
				const score = entry.result?.scores.find((candidate) => candidate.scorer === `hostile ${index}`)?.score;
				if (score !== (matches[kind] ? 1 : 0)) wrong.push(`case ${number} (${kind}) /${pattern}/: ${score}`);
			});
		}
		expect(wrong).toEqual([]);
		expect(failures).toBe(0);
		expect(answers).toBeGreaterThan(10);
		expect(slowestMs).toBeLessThan(1_000);
	}, 900_000);
});
