/** Traces: the workspace's generations. */
import { TRACE_CALLER_TYPES } from "../../contract/inputs/traces";
import { type CommandSpec, flag, workspaceFlag } from "./command-spec";

export const TRACE_COMMANDS: CommandSpec[] = [
	{
		path: "trace list",
		summary: "Recent generations, newest first, without their content",
		details: "--failed shows only failures, --failed=false only successes. Times are ISO-8601.",
		tool: "list_traces",
		flags: [
			workspaceFlag,
			flag("assistant", "string", "Only this assistant's generations (its id: admin assistant get)", { key: "assistantId", placeholder: "ID" }),
			flag("kind", "string", "Only this kind of generation", { choices: ["assistant", "playground", "execute", "evaluation"] }),
			flag("version", "string", "Only generations answered by this assistant version (its id)", { key: "versionId", placeholder: "ID" }),
			flag("environment", "string", "Only generations served by this environment (its id)", { key: "environmentId", placeholder: "ID" }),
			flag("principal", "string", "Only generations asked by this API key id or user id", { key: "principalId", placeholder: "ID" }),
			flag("caller-type", "string", "Only generations asked through this way in", { key: "principalType", choices: [...TRACE_CALLER_TYPES] }),
			flag("failed", "boolean", "Only failures (--failed=false: only successes)"),
			flag("since", "string", "At or after this time", { placeholder: "TIME" }),
			flag("until", "string", "Before this time", { placeholder: "TIME" }),
			flag("before", "string", "nextBefore of the previous page", { placeholder: "CURSOR" }),
			flag("limit", "integer", "Page size, 1 to 100", { default: "20" }),
		],
		table: { list: "traces", columns: ["id", "createdAt", "kind", "model", "latencyMs", "inputTokens", "outputTokens", "costMicroUsd", "errorCode"], empty: "No traces." },
	},
	{
		path: "trace get",
		summary: "One generation in full: messages and settings sent, output, tokens, latency, cost, error",
		tool: "get_trace",
		flags: [workspaceFlag, flag("trace", "string", "The trace's id (admin trace list)", { key: "traceId", placeholder: "ID", required: true })],
	},
];
