import type { KnowledgeSearchTool } from "../../contract/inputs/assistant-tools";
import type { RunnableTool, ToolEnvironment } from "./tool-kind";

const DEFAULT_TOP_K = 5;

/** Searches the tool's knowledge sources with the query the model writes (beside the always-on retrieval). */
export function prepareKnowledgeSearchTool(tool: KnowledgeSearchTool, environment: ToolEnvironment): RunnableTool[] {
	return [
		{
			definition: {
				name: tool.name,
				description: tool.description,
				parameters: {
					type: "object",
					properties: { query: { type: "string", description: "What to search for", minLength: 1, maxLength: 2000 } },
					required: ["query"],
					additionalProperties: false,
				},
			},
			run: (args, signal) =>
				environment.searchKnowledge({ query: String(args.query), sourceIds: tool.sourceIds, topK: tool.topK ?? DEFAULT_TOP_K, minScore: tool.minScore }, signal),
		},
	];
}
