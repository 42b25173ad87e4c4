import type { AssistantTool } from "../../contract/inputs/assistant-tools";
import type { ToolCall, ToolDefinition } from "../providers/types";
import { prepareHttpTool } from "./http-tool";
import { prepareKnowledgeSearchTool } from "./knowledge-search-tool";
import { prepareMcpTools } from "./mcp-tool";
import { redactSecrets } from "./redact-secrets";
import { type RunnableTool, type ToolEnvironment, ToolFailure } from "./tool-kind";
import { validateArguments } from "./validate-arguments";

/** One executed call, as the caller, the trace and the model see it; secrets already redacted. */
export interface ToolCallRecord {
	id: string;
	name: string;
	/** The parsed arguments, or the text the model wrote when it was not a JSON object. */
	arguments: unknown;
	ok: boolean;
	error?: string;
	/** What the model gets back (the result, or the error). */
	content: string;
	/** Bytes of `content`. */
	size: number;
	latencyMs: number;
}

/** A model's tool-call arguments, parsed: a JSON object, or the problem with them. */
function parseArguments(text: string): { value: Record<string, unknown> } | { problem: string; raw: string } {
	let value: unknown;
	try {
		value = text.trim() === "" ? {} : JSON.parse(text);
	} catch {
		return { problem: "The arguments are not valid JSON", raw: text };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "The arguments must be a JSON object", raw: text };
	return { value: value as Record<string, unknown> };
}

/**
 * A version's tools, ready for one generation: what the model is offered, and one call run at a
 * time or a turn's calls together. Every failure (unknown tool, arguments against the schema, a
 * timeout, an HTTP error, an address refused) becomes an error result for the model to act on,
 * not a failed generation; only the generation's own cancellation is thrown.
 */
export class Toolbox {
	private readonly tools = new Map<string, RunnableTool>();
	/** Each tool's kind (knowledge_search, http, mcp), by tool name. */
	private readonly kinds = new Map<string, AssistantTool["type"]>();

	private constructor(
		tools: { kind: AssistantTool["type"]; runnable: RunnableTool[] }[],
		private readonly secretValues: string[],
	) {
		for (const { kind, runnable } of tools) {
			for (const tool of runnable) {
				this.tools.set(tool.definition.name, tool);
				this.kinds.set(tool.definition.name, kind);
			}
		}
	}

	static async prepare(configured: AssistantTool[], environment: ToolEnvironment): Promise<Toolbox> {
		const prepared = await Promise.all(
			configured.map(async (tool) => {
				switch (tool.type) {
					case "knowledge_search":
						return { kind: tool.type, runnable: prepareKnowledgeSearchTool(tool, environment) };
					case "http":
						return { kind: tool.type, runnable: prepareHttpTool(tool, environment) };
					case "mcp":
						return { kind: tool.type, runnable: await prepareMcpTools(tool, environment) };
				}
			}),
		);
		return new Toolbox(prepared, [...environment.secrets.values()]);
	}

	get definitions(): ToolDefinition[] {
		return [...this.tools.values()].map((tool) => tool.definition);
	}

	redact(text: string): string {
		return redactSecrets(text, this.secretValues);
	}

	/** The kind of the tool named `name`, or `unknown` for a name the model made up. */
	kindOf(name: string): AssistantTool["type"] | "unknown" {
		return this.kinds.get(name) ?? "unknown";
	}

	async run(call: ToolCall, signal: AbortSignal): Promise<ToolCallRecord> {
		const startedAt = performance.now();
		const parsed = parseArguments(call.arguments);
		const recordedArguments = "value" in parsed ? JSON.parse(this.redact(JSON.stringify(parsed.value))) : this.redact(parsed.raw);
		const finish = (ok: boolean, text: string): ToolCallRecord => {
			const content = this.redact(text);
			return {
				id: call.id,
				name: call.name,
				arguments: recordedArguments,
				ok,
				...(ok ? {} : { error: content }),
				content,
				size: Buffer.byteLength(content),
				latencyMs: Math.round(performance.now() - startedAt),
			};
		};
		const tool = this.tools.get(call.name);
		if (!tool) return finish(false, `There is no tool named ${call.name}`);
		if ("problem" in parsed) return finish(false, parsed.problem);
		const problems = validateArguments(tool.definition.parameters, parsed.value);
		if (problems.length > 0) return finish(false, `Invalid arguments: ${problems.join("; ")}`);
		try {
			return finish(true, await tool.run(parsed.value, signal));
		} catch (error) {
			if (signal.aborted) throw error;
			if (error instanceof ToolFailure) return finish(false, error.message);
			return finish(false, `The tool failed: ${error instanceof Error ? error.message : String(error)}`);
		}
	}
}
