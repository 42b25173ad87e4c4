import { c, metadata } from "../common";
import { ZGetTraceInput, ZGetUsageInput, ZListTracesInput } from "../inputs/traces";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";
import { fromUrlBoolean, fromUrlNumber } from "./from-input";

export const ZTrace = z
	.object({
		id: z.string(),
		/** assistant (deployed), playground, execute (ad hoc) or evaluation. */
		kind: z.string(),
		principalType: z.string(),
		principalId: z.string().nullable(),
		assistantId: z.string().nullable(),
		versionId: z.string().nullable(),
		environmentId: z.string().nullable(),
		provider: z.string(),
		model: z.string(),
		streamed: z.boolean(),
		latencyMs: z.number(),
		timeToFirstTokenMs: z.number().nullable(),
		inputTokens: z.number(),
		outputTokens: z.number(),
		totalTokens: z.number(),
		/** Estimated from the model's list price, in millionths of a US dollar (0 for models without a known price). */
		costMicroUsd: z.number(),
		finishReason: z.string().nullable(),
		errorCode: z.string().nullable(),
		errorMessage: z.string().nullable(),
		/** {messages, config} as sent to the provider; null when the workspace does not store content. */
		input: z.unknown(),
		output: z.string().nullable(),
		createdAt: z.string().datetime(),
	})
	.openapi("Trace");

export const ZTraceSummary = ZTrace.omit({ timeToFirstTokenMs: true, totalTokens: true, errorMessage: true, input: true, output: true }).openapi("TraceSummary");

export const ZUsage = z
	.object({
		since: z.string(),
		until: z.string(),
		days: z.array(
			z.object({
				day: z.string(),
				requests: z.number().int(),
				errors: z.number().int(),
				inputTokens: z.number().int(),
				outputTokens: z.number().int(),
				costMicroUsd: z.number(),
				latencyP50Ms: z.number().nullable(),
				latencyP95Ms: z.number().nullable(),
				latencyP99Ms: z.number().nullable(),
			}),
		),
		byAssistant: z.array(z.object({ day: z.string(), assistantId: z.string().nullable(), assistantName: z.string().nullable(), requests: z.number().int(), costMicroUsd: z.number() })),
		month: z.object({ month: z.string(), spentMicroUsd: z.number(), quotaMicroUsd: z.number().nullable() }),
	})
	.openapi("Usage");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const list = ZListTracesInput.shape;

/** Generations as their traces recorded them, over the use cases of the MCP tools list_traces and get_trace; usage adds them up. */
export const tracesContract = c.router({
	listTraces: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/traces",
		summary: "Generations newest first, without their content, a page at a time (pass nextBefore as before); filtered by assistant, version, environment, kind, caller, outcome and time",
		pathParams: z.object({ workspaceId: list.workspaceId }),
		query: z.object({
			assistantId: list.assistantId,
			versionId: list.versionId,
			environmentId: list.environmentId,
			kind: list.kind,
			principalType: list.principalType,
			principalId: list.principalId,
			failed: fromUrlBoolean(list.failed),
			since: list.since,
			until: list.until,
			before: list.before,
			limit: fromUrlNumber(list.limit),
		}),
		responses: { 200: z.object({ traces: z.array(ZTraceSummary), nextBefore: z.string().nullable() }), ...errors },
		metadata: metadata({ operationId: "listTraces", tags: ["Traces"], session: "required" }),
	},
	getUsage: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/usage",
		summary: "The workspace's generations day by day (UTC): requests, errors, tokens, cost, latency percentiles, per assistant, and the month's spend against its quota",
		pathParams: ZGetUsageInput.pick({ workspaceId: true }),
		query: ZGetUsageInput.pick({ since: true, until: true }),
		responses: { 200: ZUsage, ...errors },
		metadata: metadata({ operationId: "getUsage", tags: ["Traces"], session: "required" }),
	},
	getTrace: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/traces/:traceId",
		summary: "One generation in full: the messages and settings sent, the output, tokens, latency, cost and error",
		pathParams: ZGetTraceInput.pick({ workspaceId: true, traceId: true }),
		responses: { 200: ZTrace, 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "getTrace", tags: ["Traces"], session: "required" }),
	},
});
