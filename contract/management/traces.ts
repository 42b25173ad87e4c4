import { c, metadata } from "../common";
import { ZGetTraceInput } from "../inputs/traces";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

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

/** Generations as their traces recorded them, over the use case of the MCP tool get_trace. */
export const tracesContract = c.router({
	getTrace: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/traces/:traceId",
		summary: "One generation in full: the messages and settings sent, the output, tokens, latency, cost and error",
		pathParams: ZGetTraceInput.pick({ workspaceId: true, traceId: true }),
		responses: { 200: ZTrace, 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "getTrace", tags: ["Traces"], session: "required" }),
	},
});
