import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { getEvaluationRun } from "../../server/modules/evaluations/get-evaluation-run";
import type { UseCaseContext } from "../../server/modules/platform-services";
import { recordConnection } from "../../server/modules/oauth/approve-connection";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { MCP_SCOPES, type McpScope, type UserPrincipal } from "../../server/shared/principal";
import { newId } from "../../server/shared/ids";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, type RecordedRequest, type ScriptedAnswer, startProviderStandIn } from "../helpers/provider-stand-in";
import { afterAll, beforeAll } from "vitest";
import { eventually } from "../knowledge/knowledge-helpers";

export const TARGET_MODEL = "gpt-4o-mini";
export const GRADER_MODEL = "grader-model";
export const SLOPPY_GRADER_MODEL = "sloppy-grader";

/** What each version of the assistant answers, by input: version 2 regresses on the capital question. */
const ANSWERS: Record<string, { v1: string; v2: string }> = {
	"What is 2+2?": { v1: "4", v2: "4" },
	"What is the capital of France?": { v1: "The capital is Paris.", v2: "I am not sure." },
	"Give the order as JSON": { v1: '{"id": 7, "status": "shipped"}', v2: '{"id": 7, "status": "shipped"}' },
	"Greet me": { v1: "Hello there!", v2: "Hello there!" },
	"Explain refunds": { v1: "Refunds are accepted within 30 days.", v2: "Refunds are accepted within 30 days." },
	"What's your name?": { v1: "I am Orbit Bot.", v2: "I am Orbit Bot." },
};

/** The answer a grading prompt holds: the JSON string between the ANSWER markers of the grading's nonce. */
export function gradedAnswer(prompt: string): string | undefined {
	const section = /^<<<ANSWER-([0-9a-f]{32})\n(.*)\nANSWER-\1>>>$/m.exec(prompt);
	return section ? (JSON.parse(section[2]) as string) : undefined;
}

function messagesOf(request: RecordedRequest): { role: string; content: string }[] {
	return (request.body.messages as { role: string; content: string }[]) ?? [];
}

/**
 * The provider stand-in's answers, by request: the assistant (its system prompt names the version)
 * answers from ANSWERS; the grader scores 0.9 when the graded answer mentions 30 days, else 0.2;
 * the sloppy grader answers in prose, which the rubric scorer must refuse.
 */
export function answerByRequest(request: RecordedRequest): ScriptedAnswer | undefined {
	const messages = messagesOf(request);
	const model = String(request.body.model);
	if (model === SLOPPY_GRADER_MODEL) return { kind: "completion", content: "Looks good to me, maybe 8/10." };
	if (model === GRADER_MODEL) {
		const prompt = messages[messages.length - 1]?.content ?? "";
		const answer = gradedAnswer(prompt) ?? "";
		const good = answer.includes("30 days");
		return { kind: "completion", content: JSON.stringify({ score: good ? 0.9 : 0.2, reasoning: good ? "States the 30-day window." : "Does not state the window." }) };
	}
	const version = messages[0]?.content.includes("[v2]") ? "v2" : "v1";
	const lastUser = [...messages].reverse().find((message) => message.role === "user")?.content ?? "";
	const entry = ANSWERS[lastUser];
	return entry ? { kind: "completion", content: entry[version], usage: { prompt_tokens: 20, completion_tokens: 5 } } : undefined;
}

/** An assistant with version 1 (prompt tagged [v1]) and version 2 ([v2]); version 1 is published. */
export async function assistantWithTwoVersions(context: () => UseCaseContext, workspaceId: string, slug = "orbit") {
	await createAssistant(context(), { workspaceId, slug, name: "Orbit" });
	for (const tag of ["v1", "v2"]) {
		await updateAssistantDraft(context(), { workspaceId, slug, patch: { provider: "openai", model: TARGET_MODEL, systemPrompt: `[${tag}] You are Orbit Bot, helping {{customer}}.`, variables: [{ name: "customer", type: "string", required: false, default: "a customer" }], generation: { maxRetries: 0 } } });
		await createAssistantVersion(context(), { workspaceId, slug, note: tag });
	}
	await publishAssistantVersion(context(), { workspaceId, slug, version: 1 });
}

/** A dataset with a case for every scorer, plus a case whose grader answers out of form. */
export async function datasetWithEveryScorer(context: () => UseCaseContext, workspaceId: string) {
	const dataset = await createEvaluationDataset(context(), { workspaceId, name: "Every scorer" });
	const add = (fields: Record<string, unknown>) => addEvaluationCase(context(), { workspaceId, datasetId: dataset.id, ...fields });
	const cases = {
		arithmetic: await add({ input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }, { type: "numeric", tolerance: 0 }] }),
		capital: await add({ input: "What is the capital of France?", expectedOutput: "Paris", scorers: [{ type: "contains" }] }),
		json: await add({
			input: "Give the order as JSON",
			scorers: [{ type: "json", schema: { type: "object", required: ["id", "status"], properties: { id: { type: "integer" }, status: { enum: ["shipped", "pending"] } } } }],
		}),
		greeting: await add({ input: "Greet me", variables: { customer: "Ada" }, scorers: [{ type: "regex", pattern: "^hello\\b", flags: "i" }] }),
		rubric: await add({ input: "Explain refunds", scorers: [{ type: "rubric", criteria: "States that refunds are accepted within 30 days.", provider: "openai", model: GRADER_MODEL, passThreshold: 0.7 }] }),
		conversation: await add({
			messages: [
				{ role: "user", content: "Hi" },
				{ role: "assistant", content: "Hello!" },
				{ role: "user", content: "What's your name?" },
			],
			expectedOutput: "Orbit Bot",
			scorers: [{ type: "contains", name: "names itself" }],
		}),
		sloppyGrader: await add({ input: "Explain refunds", scorers: [{ type: "contains", value: "30 days" }, { type: "rubric", name: "sloppy rubric", criteria: "Mentions the window.", provider: "openai", model: SLOPPY_GRADER_MODEL }] }),
	};
	return { dataset, cases };
}

/**
 * A user principal over a real connection record, as the /mcp endpoint builds one from an access
 * token: runs check their starter's connection before every case, so a made-up connection id
 * would cancel them.
 */
export async function connectedUser(platform: TestPlatform, userId: string, options: { organizationId: string | null; scopes?: readonly McpScope[] }): Promise<UserPrincipal> {
	const scopes = [...(options.scopes ?? MCP_SCOPES)];
	const clientId = `client-${newId("test")}`;
	const { connectionId } = await recordConnection(platform.operator(), { userId, organizationId: options.organizationId, clientId, clientName: "Test client", scopes, grantId: newId("grant") });
	return { kind: "user", userId, clientId, connectionId, organizationId: options.organizationId, scopes: new Set(scopes) };
}

export async function waitForRun(context: () => UseCaseContext, workspaceId: string, runId: string, statuses = ["completed", "failed", "cancelled"], timeoutMs = 30_000) {
	return eventually(
		async () => {
			const run = await getEvaluationRun(context(), { workspaceId, runId });
			return statuses.includes(run.status) ? run : undefined;
		},
		timeoutMs,
		`run ${runId} to reach ${statuses.join(" or ")}`,
	);
}

/**
 * What every evaluation test file starts from: a platform, the provider stand-in answering by
 * request, and a workspace with an OpenAI credential on the stand-in and the two-version `orbit`
 * assistant. Stopped after the file.
 */
export function useEvaluationTestbed(use: (testbed: { platform: TestPlatform; standIn: ProviderStandIn; workspace: TestWorkspace }) => void): void {
	let platform: TestPlatform | undefined;
	let standIn: ProviderStandIn | undefined;
	beforeAll(async () => {
		platform = await startTestPlatform();
		standIn = await startProviderStandIn();
		standIn.responder = answerByRequest;
		const workspace = await platform.createWorkspace();
		const started = platform;
		await setProviderCredential(started.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: standIn.baseUrl });
		await assistantWithTwoVersions(() => started.operator(), workspace.workspaceId);
		use({ platform, standIn, workspace });
	});
	afterAll(async () => {
		await standIn?.close();
		await platform?.stop();
	});
}
