import type { EvaluationCase, EvaluationResult, EvaluationRun } from "../../db/entities";
import type { ProviderName } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { renderPromptTemplate, resolveVariables } from "../assistants/render-prompt";
import { formatKnowledgeContext, retrieveKnowledge } from "../assistants/retrieve-knowledge-context";
import type { UseCaseContext } from "../platform-services";
import { executeGeneration, type GenerationInput } from "../runtime/run-generation";
import { costInMicroUsd } from "../traces/model-prices";
import { prepareAssistantTools } from "../assistants/prepare-assistant-tools";
import { scoreOutput } from "./scorers/score-output";

export type CaseResult = Omit<EvaluationResult, "createdAt">;

/** The case's input as text: for the grader, and as the knowledge query. */
function caseInputText(evaluationCase: EvaluationCase): string {
	if (evaluationCase.input !== null) return evaluationCase.input;
	return (evaluationCase.messages ?? []).map((message) => `${message.role}: ${message.content}`).join("\n");
}

function lastUserMessage(evaluationCase: EvaluationCase): string {
	const messages = evaluationCase.messages ?? [];
	return [...messages].reverse().find((message) => message.role === "user")?.content ?? messages[messages.length - 1]?.content ?? "";
}

/** The run's frozen config applied to one case, as a deployed assistant would be run: system prompt, knowledge, then the input. */
async function prepareCaseGeneration(context: UseCaseContext, run: EvaluationRun, evaluationCase: EvaluationCase, traceId: string): Promise<GenerationInput> {
	const { config } = run;
	const values = resolveVariables(config.variables, evaluationCase.variables);
	const systemPrompt = renderPromptTemplate(config.systemPrompt, values, config.variables);
	const query = evaluationCase.input ?? lastUserMessage(evaluationCase);
	const chunks = config.knowledge.length === 0 ? [] : await retrieveKnowledge(context, { workspaceId: run.workspace, query, knowledge: config.knowledge });
	const tools = await prepareAssistantTools(context, run.workspace, config);
	return {
		origin: {
			workspaceId: run.workspace,
			principal: context.principal,
			assistant: { assistantId: run.assistant, versionId: run.version, environment: run.target.kind === "environment" ? run.target.environment : null },
			traceId,
		},
		providerName: config.provider as ProviderName,
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			...(evaluationCase.input !== null ? [{ role: "user" as const, content: evaluationCase.input }] : (evaluationCase.messages ?? [])),
		],
		config: config.generation,
		...(tools ? { tools } : {}),
	};
}

function reasonOf(error: unknown): string {
	return error instanceof AppError ? `${error.code}: ${error.message}${error.fields ? ` (${error.fields.map((field) => `${field.field}: ${field.issue}`).join("; ")})` : ""}` : "Unexpected failure";
}

/**
 * One case of a run: generate through the runtime's path (its retries, timeout and trace, under
 * the run's principal), then every scorer. A failed generation or a failed scorer makes the case
 * `errored` with the reason; it never fails the run.
 */
export async function runEvaluationCase(context: UseCaseContext, run: EvaluationRun, evaluationCase: EvaluationCase): Promise<CaseResult> {
	const traceId = newId("trace");
	const base = {
		id: newId("evres"),
		workspace: run.workspace,
		run: run.id,
		evaluationCase: evaluationCase.id,
		inputTokens: 0,
		outputTokens: 0,
		totalTokens: 0,
		costMicroUsd: 0,
		latencyMs: null as number | null,
		trace: null as string | null,
	};
	let generation: GenerationInput;
	try {
		generation = await prepareCaseGeneration(context, run, evaluationCase, traceId);
	} catch (error) {
		return { ...base, status: "errored", output: null, scores: [], score: null, passed: false, error: `The case could not be prepared: ${reasonOf(error)}` };
	}
	const startedAt = Date.now();
	let output: string;
	let toolCalls: { name: string; arguments: unknown }[] = [];
	try {
		const result = await executeGeneration(context, generation);
		output = result.message.content;
		toolCalls = (result.toolCalls ?? []).map((call) => ({ name: call.name, arguments: call.arguments }));
		base.latencyMs = Date.now() - startedAt;
		base.inputTokens = result.usage.inputTokens;
		base.outputTokens = result.usage.outputTokens;
		base.totalTokens = result.usage.totalTokens;
		base.costMicroUsd = costInMicroUsd(generation.model, result.usage);
		base.trace = traceId;
	} catch (error) {
		// Failed generations are traced too.
		return { ...base, latencyMs: Date.now() - startedAt, trace: traceId, status: "errored", output: null, scores: [], score: null, passed: false, error: `Generation failed: ${reasonOf(error)}` };
	}
	const { scores, costMicroUsd } = await scoreOutput(context, evaluationCase.scorers, generation.origin, {
		input: caseInputText(evaluationCase),
		expected: evaluationCase.expectedOutput,
		output,
		toolCalls,
	});
	base.costMicroUsd += costMicroUsd;
	const failedScorers = scores.filter((score) => score.error !== null);
	if (failedScorers.length > 0) {
		return { ...base, status: "errored", output, scores, score: null, passed: false, error: failedScorers.map((score) => `${score.scorer}: ${score.error}`).join("; ") };
	}
	const score = scores.reduce((sum, entry) => sum + (entry.score ?? 0), 0) / scores.length;
	const passed = scores.every((entry) => entry.passed === true);
	return { ...base, status: passed ? "passed" : "failed", output, scores, score, passed, error: null };
}
