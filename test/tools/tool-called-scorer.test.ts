import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { getEvaluationRun } from "../../server/modules/evaluations/get-evaluation-run";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { TARGET_MODEL, useEvaluationTestbed, waitForRun } from "../evaluations/evaluation-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;
const operator = () => platform.operator();

useEvaluationTestbed((started) => ({ platform, standIn, workspace } = started));

describe("the tool_called scorer", () => {
	it("catches a version that stops calling the tool (or calls it with other arguments)", async () => {
		const { workspaceId } = workspace;
		const tools = [{ type: "knowledge_search" as const, name: "search_policies", description: "Searches the refund policies", sourceIds: ["src_gone"] }];
		await createAssistant(operator(), { workspaceId, slug: "policy-bot", name: "Policy bot" });
		for (const tag of ["calls", "silent"]) {
			await updateAssistantDraft(operator(), { workspaceId, slug: "policy-bot", patch: { provider: "openai", model: TARGET_MODEL, systemPrompt: `[${tag}] Answer policy questions.`, generation: { maxRetries: 0 }, tools } });
			await createAssistantVersion(operator(), { workspaceId, slug: "policy-bot", note: tag });
		}
		const previous = standIn.responder;
		standIn.responder = (request) => {
			const messages = request.body.messages as { role: string; content: string }[];
			if (!JSON.stringify(messages).includes("[calls]") || messages.some((message) => message.role === "tool")) return { kind: "completion", content: "Refunds within 30 days." };
			return { kind: "completion", toolCalls: [{ name: "search_policies", arguments: { query: "refund window" } }] };
		};
		try {
			const dataset = await createEvaluationDataset(operator(), { workspaceId, name: "Tool use" });
			await addEvaluationCase(operator(), { workspaceId, datasetId: dataset.id, input: "What is the refund window?", scorers: [{ type: "tool_called", tool: "search_policies" }] });
			await addEvaluationCase(operator(), {
				workspaceId,
				datasetId: dataset.id,
				input: "Refund window?",
				scorers: [{ type: "tool_called", name: "right query", tool: "search_policies", arguments: { query: "refund window" } }],
			});
			const runs = [];
			for (const version of [1, 2]) {
				const started = await startEvaluationRun(operator(), { workspaceId, datasetId: dataset.id, target: { kind: "version", assistantSlug: "policy-bot", version } });
				runs.push(await waitForRun(operator, workspaceId, started.id));
			}
			expect(runs.map((run) => run.status)).toEqual(["completed", "completed"]);
			const compared = await getEvaluationRun(operator(), { workspaceId, runId: runs[1]!.id, compareToRunId: runs[0]!.id });
			expect(compared.comparison?.regressedCaseIds).toHaveLength(2);
			const cases = compared.comparison!.cases;
			expect(cases.map((entry) => entry.verdict)).toEqual(["regressed", "regressed"]);
			expect(cases[0]).toMatchObject({ candidate: { status: "failed" }, baseline: { status: "passed" }, scorers: [{ scorer: "tool_called", candidate: 0, baseline: 1 }] });
			expect(cases[1]).toMatchObject({ scorers: [{ scorer: "right query", candidate: 0, baseline: 1 }] });
		} finally {
			standIn.responder = previous;
		}
	});
});
