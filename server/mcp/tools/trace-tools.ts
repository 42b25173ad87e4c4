import { z } from "zod";
import { ZGetTraceInput } from "../../../contract/inputs/traces";
import { getTrace } from "../../modules/traces/get-trace";
import { listTraces } from "../../modules/traces/list-traces";
import { defineTool, type McpTool, READ_ONLY } from "../tool-definition";
import { jsonObject, nullable, timestamp, workspaceId } from "./fields";

const summary = z.object({
	id: z.string(),
	kind: z.string().describe("assistant (deployed), playground, execute (ad hoc) or evaluation"),
	principalType: z.string().describe("Who asked: api_key, user or operator"),
	principalId: nullable(z.string()),
	assistantId: nullable(z.string()),
	versionId: nullable(z.string()),
	environmentId: nullable(z.string()),
	provider: z.string(),
	model: z.string(),
	streamed: z.boolean(),
	latencyMs: z.number(),
	inputTokens: z.number(),
	outputTokens: z.number(),
	costMicroUsd: z.number().describe("Cost in millionths of a US dollar"),
	finishReason: nullable(z.string()),
	errorCode: nullable(z.string()).describe("Set when the generation failed"),
	createdAt: timestamp(),
});

export const TRACE_TOOLS: McpTool[] = [
	defineTool({
		name: "list_traces",
		title: "List traces",
		description: "Recent generations of the workspace, newest first, without their content (get_trace has it); filter by assistant, kind, caller, failure and time.",
		inputSchema: {
			workspaceId,
			assistantId: z.string().max(100).optional().describe("Only this assistant's generations (an assistant id, see get_assistant)"),
			kind: z.enum(["assistant", "playground", "execute", "evaluation"]).optional().describe("Only this kind of generation"),
			principalId: z.string().max(100).optional().describe("Only generations asked by this API key id or user id"),
			failed: z.boolean().optional().describe("true: only failures; false: only successes"),
			since: z.string().max(40).optional().describe("ISO-8601: at or after this time"),
			until: z.string().max(40).optional().describe("ISO-8601: before this time"),
			before: z.string().max(100).optional().describe("nextBefore from the previous page"),
			limit: z.number().int().min(1).max(100).optional().describe("Page size (default 20)"),
		},
		outputSchema: { traces: z.array(summary), nextBefore: nullable(z.string()).describe("Pass as before for the next (older) page; null on the last") },
		annotations: READ_ONLY,
		permission: "traces:read",
		run: (context, input) => listTraces(context, input),
	}),
	defineTool({
		name: "get_trace",
		title: "Get a trace",
		description: "One generation in full: the messages and settings sent, the output, tokens, latency, cost and error (content is null when the workspace does not store it).",
		inputSchema: ZGetTraceInput.shape,
		outputSchema: {
			...summary.shape,
			timeToFirstTokenMs: nullable(z.number()),
			totalTokens: z.number(),
			input: jsonObject().nullable().describe("{messages, config} as sent to the provider; null when content is not stored"),
			output: nullable(z.string()),
			steps: z
				.array(jsonObject())
				.optional()
				.describe(
					"With assistant tools: each step in order, {type: 'model', step, inputTokens, outputTokens, costMicroUsd, finishReason, latencyMs, toolCalls} or {type: 'tool', step, id, name, arguments (secrets redacted), ok, error?, size, latencyMs}",
				),
			errorMessage: nullable(z.string()),
		},
		annotations: READ_ONLY,
		permission: "traces:read",
		run: async (context, input) => {
			const { steps, ...trace } = await getTrace(context, input);
			// Written by the runtime as {messages, config}, or null when the workspace keeps no content.
			return { ...trace, input: trace.input as Record<string, unknown> | null, ...(Array.isArray(steps) ? { steps: steps as Record<string, unknown>[] } : {}) };
		},
	}),
];
