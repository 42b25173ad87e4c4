import { PROVIDER_NAMES, ZGenerationConfig } from "../schemas/runtime";
import { MAX_TOOL_STEPS, TOOL_DEFAULTS, ZAssistantTools } from "./assistant-tools";
import { z } from "../zod";
import { assistantSlug, environmentSlug, SLUG_ISSUE, SLUG_PATTERN, workspaceId } from "./common";

/**
 * The inputs of the assistant use cases (server/modules/assistants), checked by the use cases on
 * entry; the MCP tools publish their shapes, the operator CLI derives its flags from those tools,
 * and the management API builds its routes from them (workspaceId comes from the path).
 */

const ZVariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Letters, digits and underscores, not starting with a digit");

/**
 * A prompt variable's value: a string, a number or a boolean. Each branch has one type (MCP clients
 * that map tool schemas onto a single-type dialect refuse a `type` array), and the bound on strings,
 * a rendered prompt's own limit, also keeps zod-to-json-schema from merging the branches into one.
 */
export const ZVariableValue = z.union([z.string().max(200_000), z.number(), z.boolean()]);

export const ZPromptVariable = z
	.object({
		name: ZVariableName,
		type: z.enum(["string", "number", "boolean"]),
		required: z.boolean().default(false),
		default: ZVariableValue.optional(),
		description: z.string().max(500).optional(),
	})
	.strict()
	.refine((variable) => variable.default === undefined || typeof variable.default === variable.type, { message: "default must have the variable's type", path: ["default"] });

/** Everything a version freezes: provider, model, prompt template and its variables, generation settings, attached knowledge. */
export const ZAssistantConfig = z
	.object({
		provider: z.enum(PROVIDER_NAMES),
		model: z.string().min(1).max(200),
		systemPrompt: z.string().max(200_000),
		variables: z
			.array(ZPromptVariable)
			.max(100)
			.refine((variables) => new Set(variables.map((variable) => variable.name)).size === variables.length, "Variable names must be unique"),
		generation: ZGenerationConfig.extend({
			maxToolSteps: z
				.number()
				.int()
				.min(1)
				.max(MAX_TOOL_STEPS)
				.optional()
				.describe(`Model calls that may ask for tools before the answer ends with finishReason tool_calls (default ${TOOL_DEFAULTS.maxToolSteps})`),
		}).strict(),
		knowledge: z
			.array(
				z
					.object({
						sourceId: z.string().min(1),
						topK: z.number().int().min(1).max(50),
						// Search scores are 0..1 (fused, relative to the input's best match).
						minScore: z.number().min(0).max(1).optional(),
					})
					.strict(),
			)
			.max(20),
		/** Absent in versions made before tools existed: no tools. */
		tools: ZAssistantTools.optional(),
	})
	.strict();

/** Whether each value has its variable's declared type is checked by the use case, which names the variable. */
export const variables = z
	.record(ZVariableValue)
	.optional()
	.describe(
		'Values for the prompt variables the assistant declares, by name, e.g. {"customerName": "Ada", "tier": 2, "vip": true}: each a string (up to 200,000 characters), a number or a boolean, of the type the variable declares (get_assistant_version lists them). Required ones must be given; optional ones default.',
	);

const versionNumber = () => z.number().int().min(1);
const listLimit = () => z.number().int().min(1).max(100).optional().describe("At most this many (default 100)");
const name = () => z.string().trim().min(1, "Required").max(200);
const description = () => z.string().max(2000);

export const ZListAssistantsInput = z.object({ workspaceId, includeArchived: z.boolean().optional().describe("Also list archived assistants (default false)") }).strict();

export const ZGetAssistantInput = z.object({ workspaceId, slug: assistantSlug }).strict();

export const ZGetAssistantDraftInput = z.object({ workspaceId, slug: assistantSlug }).strict();

export const ZListAssistantVersionsInput = z.object({ workspaceId, slug: assistantSlug, limit: listLimit() }).strict();

export const ZGetAssistantVersionInput = z.object({ workspaceId, slug: assistantSlug, version: versionNumber().describe("The version number") }).strict();

export const ZListDeploymentsInput = z.object({ workspaceId, slug: assistantSlug, environment: environmentSlug.optional(), limit: listLimit() }).strict();

export const ZCreateAssistantInput = z
	.object({
		workspaceId,
		slug: z
			.string()
			.min(1)
			.max(63)
			.regex(SLUG_PATTERN, SLUG_ISSUE)
			.describe("A new slug: lowercase letters, digits and dashes; callers reach the assistant at /runtime/assistants/<slug>"),
		name: name().describe("Display name"),
		description: description().optional().describe("What the assistant is for"),
	})
	.strict();

export const ZUpdateAssistantInput = z
	.object({
		workspaceId,
		slug: assistantSlug,
		name: name().optional().describe("New display name"),
		description: description().nullable().optional().describe("New description; null clears it"),
	})
	.strict();

export const ZArchiveAssistantInput = z.object({ workspaceId, slug: assistantSlug }).strict();

export const ZRestoreAssistantInput = z.object({ workspaceId, slug: assistantSlug }).strict();

export const ZAssistantConfigPatch = ZAssistantConfig.partial()
	.strict()
	.describe(
		"Fields of the draft to replace (whole values): provider ('openai' | 'mistral' | 'openai-compatible'), model, systemPrompt, variables [{name, type, required, default?, description?}], generation {temperature?, maxOutputTokens?, responseFormat?, timeoutMs?, maxRetries?, maxToolSteps? 1-20}, knowledge [{sourceId, topK 1-50, minScore? 0-1: chunks scoring below it are left out of the prompt; default 0.25, 0 turns the floor off}], tools [knowledge_search | http | mcp tools, see the tools field]",
	);

export const ZUpdateAssistantDraftInput = z.object({ workspaceId, slug: assistantSlug, patch: ZAssistantConfigPatch }).strict();

export const ZCreateAssistantVersionInput = z
	.object({ workspaceId, slug: assistantSlug, note: z.string().max(2000).optional().describe("What changed, for the history") })
	.strict();

export const ZPublishAssistantVersionInput = z
	.object({
		workspaceId,
		slug: assistantSlug,
		version: versionNumber().describe("The version number to serve"),
		environment: environmentSlug.optional().describe("Target environment; default production"),
	})
	.strict();

export const ZRollbackAssistantDeploymentInput = z
	.object({ workspaceId, slug: assistantSlug, environment: environmentSlug.optional().describe("Environment; default production") })
	.strict();

export const ZRunPlaygroundInput = z
	.object({
		workspaceId,
		slug: assistantSlug,
		input: z.string().max(1_000_000).describe("The user's turn"),
		variables,
		version: versionNumber().optional().describe("A version number to run instead of the draft"),
	})
	.strict();

export type TAssistantConfig = z.output<typeof ZAssistantConfig>;
export type TPromptVariable = z.output<typeof ZPromptVariable>;

export const ZListAssistantProvidersInput = z.object({ workspaceId }).strict();
