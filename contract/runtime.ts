import { authenticatedErrors, c, metadata, type ResponseHeader } from "./common";
import { ZErrorEnvelope, ZIdempotencyHeaders } from "./schemas/common";
import { GENERATION_HEADERS, ZAssistantGenerationResult, ZAssistantRunInput, ZExecuteRequest, ZGenerationResult, ZSlug, ZSseStream } from "./schemas/runtime";
import { z } from "./zod";

const TRACED =
	"The answer names its trace: `traceId` in the body (in the `done` event when streamed) and the `X-Trace-Id` header. An error answered after the generation reached the provider (provider failures, timeouts) also carries `X-Trace-Id`: that failure was traced too.";

const traceHeader: Record<string, ResponseHeader> = {
	[GENERATION_HEADERS.traceId]: { component: "TraceId", type: "string", description: "The trace recording this generation, as `traceId` in the body or the `done` event." },
};
/** A generation's answer headers: its trace, and for a deployed assistant the version and environment that served it. */
export const assistantHeaders: Record<string, ResponseHeader> = {
	...traceHeader,
	[GENERATION_HEADERS.assistantVersion]: { component: "AssistantVersion", type: "integer", description: "The published version of the assistant that answered." },
	[GENERATION_HEADERS.assistantEnvironment]: { component: "AssistantEnvironment", type: "string", description: "The environment whose deployment served the assistant." },
};

const generationErrors = {
	...authenticatedErrors,
	409: ZErrorEnvelope,
	502: ZErrorEnvelope,
	503: ZErrorEnvelope,
	504: ZErrorEnvelope,
} as const;

const sse = c.otherResponse({ contentType: "text/event-stream", body: ZSseStream });

const ZSlugParams = z.object({ slug: ZSlug.openapi({ description: "The assistant's slug in the API key's workspace." }) });

export const runtimeContract = c.router(
	{
		execute: {
			method: "POST",
			path: "/runtime/execute",
			summary: "Run an ad-hoc generation",
			description:
				"The caller names provider, model and messages. Runs on the workspace's own credential for that provider (400 INVALID_REQUEST when none is stored). Provider failures, each naming the provider in `message`: rate limit 429 RATE_LIMITED with the provider's Retry-After; rejected credential 400 INVALID_REQUEST (update the workspace's credential for that provider); request rejected as invalid (unknown model…) 400 INVALID_REQUEST; 5xx or malformed answer 502 INTERNAL_ERROR; unreachable 503 INTERNAL_ERROR; timeout (config.timeoutMs) 504 INTERNAL_ERROR. " + TRACED,
			headers: ZIdempotencyHeaders,
			body: ZExecuteRequest,
			responses: { 200: ZGenerationResult, ...generationErrors },
			metadata: metadata({ operationId: "executeGeneration", tags: ["Runtime"], scope: "runtime:execute", idempotent: true, responseHeaders: traceHeader }),
		},
		stream: {
			method: "POST",
			path: "/runtime/stream",
			summary: "Stream an ad-hoc generation (SSE)",
			description: `Same body as /runtime/execute. Errors before the stream opens use the JSON envelope; a provider failure after it opens is a terminal \`error\` event. ${TRACED}`,
			headers: ZIdempotencyHeaders,
			body: ZExecuteRequest,
			responses: { 200: sse, ...generationErrors },
			metadata: metadata({ operationId: "streamGeneration", tags: ["Runtime"], scope: "runtime:execute", idempotent: true, responseHeaders: traceHeader }),
		},
		runAssistant: {
			method: "POST",
			path: "/runtime/assistants/:slug",
			summary: "Run a deployed assistant",
			description:
				"Provider, model and prompt come from the version deployed to `environment` (default production). 404 ASSISTANT_NOT_FOUND for an unknown slug; 404 DEPLOYMENT_NOT_FOUND when the assistant is not deployed there or is archived. Variables are checked against the version's declarations (400 VALIDATION_ERROR on `variables.<name>`). The answer names the version and environment that served it (`assistant` in the body, `X-Assistant-Version` and `X-Assistant-Environment` headers). " + TRACED,
			pathParams: ZSlugParams,
			headers: ZIdempotencyHeaders,
			body: ZAssistantRunInput,
			responses: { 200: ZAssistantGenerationResult, 404: ZErrorEnvelope, ...generationErrors },
			metadata: metadata({ operationId: "runAssistant", tags: ["Runtime"], scope: "runtime:execute", idempotent: true, responseHeaders: assistantHeaders }),
		},
		streamAssistant: {
			method: "POST",
			path: "/runtime/assistants/:slug/stream",
			summary: "Stream a deployed assistant (SSE)",
			description: `As POST /runtime/assistants/{slug}, answered as Server-Sent Events. The \`X-Assistant-Version\`, \`X-Assistant-Environment\` and \`X-Trace-Id\` headers come with the stream's opening, and the \`done\` event repeats them (\`assistant\`, \`traceId\`). ${TRACED}`,
			pathParams: ZSlugParams,
			headers: ZIdempotencyHeaders,
			body: ZAssistantRunInput,
			responses: { 200: sse, 404: ZErrorEnvelope, ...generationErrors },
			metadata: metadata({ operationId: "streamAssistant", tags: ["Runtime"], scope: "runtime:execute", idempotent: true, responseHeaders: assistantHeaders }),
		},
	},
	{ strictStatusCodes: true },
);
