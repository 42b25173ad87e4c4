import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z, ZodRawShape } from "zod";
import type { Permission } from "../modules/access/permissions";
import type { UseCaseContext } from "../modules/platform-services";

/**
 * One MCP tool: a thin adapter over a use case. The schemas are what the client sees (every field
 * carries a description a model can act on); `permission` names the row of permissions.ts that the
 * use case enforces, so the README's tools table is generated from the same source. Argument names
 * listed in `secretArguments` are redacted before the call is audited.
 */
export interface McpTool<Input extends ZodRawShape = ZodRawShape, Output extends ZodRawShape = ZodRawShape> {
	name: string;
	title: string;
	description: string;
	inputSchema: Input;
	outputSchema: Output;
	annotations: ToolAnnotations;
	/** null: answers about the caller only (whoami, list_organizations); needs nothing but a valid token. */
	permission: Permission | null;
	secretArguments?: readonly string[];
	run(context: UseCaseContext, input: z.objectOutputType<Input, z.ZodTypeAny>): Promise<z.objectOutputType<Output, z.ZodTypeAny>>;
}

/** Infers the input and output types of one tool from its schemas. */
export function defineTool<Input extends ZodRawShape, Output extends ZodRawShape>(tool: McpTool<Input, Output>): McpTool<Input, Output> {
	return tool;
}

/**
 * The annotation sets the tools use: a client asks for confirmation before destructive ones. MCP's
 * definition decides (Tool annotations: destructiveHint false means "only additive updates"): a
 * tool that deletes, overwrites (a role, a credential, a draft, a name) or changes what the
 * runtime serves (publish, rollback, archive, restore) is destructive; one that only adds is not.
 */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Only adds (a new assistant, version, source, key). */
export const WRITES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const IDEMPOTENT_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Deletes or overwrites; the same call again changes nothing more. */
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Changes what is served, and each call again changes it again (publish and rollback each move the history on). */
export const DESTRUCTIVE_NOT_IDEMPOTENT: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
/** Calls a model provider: costs money and reaches outside the platform. */
export const GENERATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
