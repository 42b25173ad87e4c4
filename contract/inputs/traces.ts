import { z } from "../zod";
import { workspaceId } from "./common";

/** The inputs of the trace use cases (server/modules/traces) that the dashboard calls. */

export const ZGetTraceInput = z.object({ workspaceId, traceId: z.string().min(1).max(100).describe("A trace id (list_traces)") }).strict();

export const TRACE_KINDS = ["assistant", "playground", "execute", "evaluation"] as const;
/** Who asked, by the way they came in (a principal's kind). */
export const TRACE_CALLER_TYPES = ["api_key", "user", "session", "operator"] as const;

export const ZListTracesInput = z
	.object({
		workspaceId,
		assistantId: z.string().max(100).optional().describe("Only this assistant's generations (an assistant id, see get_assistant)"),
		versionId: z.string().max(100).optional().describe("Only generations answered by this assistant version (a version id)"),
		environmentId: z.string().max(100).optional().describe("Only generations served by this environment (an environment id)"),
		kind: z.enum(TRACE_KINDS).optional().describe("Only this kind of generation"),
		principalType: z.enum(TRACE_CALLER_TYPES).optional().describe("Only generations asked through this way in: api_key (the runtime API), user (an MCP client), session (the dashboard) or operator (the CLI)"),
		principalId: z.string().max(100).optional().describe("Only generations asked by this API key id or user id"),
		failed: z.boolean().optional().describe("true: only failures; false: only successes"),
		since: z.string().max(40).optional().describe("ISO-8601: at or after this time"),
		until: z.string().max(40).optional().describe("ISO-8601: before this time"),
		before: z.string().max(100).optional().describe("nextBefore from the previous page"),
		limit: z.number().int().min(1).max(100).optional().describe("Page size (default 20)"),
	})
	.strict();

/** The longest range the usage charts cover at once: a quarter, day by day. */
export const MAX_USAGE_DAYS = 92;

export const ZGetUsageInput = z
	.object({
		workspaceId,
		since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "A date, YYYY-MM-DD").describe("First day (UTC), YYYY-MM-DD"),
		until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "A date, YYYY-MM-DD").describe("Last day (UTC, included), YYYY-MM-DD"),
	})
	.strict();
