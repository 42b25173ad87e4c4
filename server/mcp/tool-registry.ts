import type { McpTool } from "./tool-definition";
import { ADMIN_TOOLS } from "./tools/admin-tools";
import { ASSISTANT_TOOLS } from "./tools/assistant-tools";
import { EVALUATION_TOOLS } from "./tools/evaluation-tools";
import { IDENTITY_TOOLS } from "./tools/identity-tools";
import { KNOWLEDGE_TOOLS } from "./tools/knowledge-tools";
import { TRACE_TOOLS } from "./tools/trace-tools";

/** Every tool of the control plane, by area; the README's tools table is generated from this list. */
export const MCP_TOOLS: readonly McpTool[] = [...IDENTITY_TOOLS, ...ASSISTANT_TOOLS, ...KNOWLEDGE_TOOLS, ...TRACE_TOOLS, ...EVALUATION_TOOLS, ...ADMIN_TOOLS];
