import { z } from "zod";
import { ZGenerationConfig } from "../../../contract/schemas/runtime";
import { type AssistantConfig, PROVIDERS } from "../../db/entities";
import { AppError } from "../../shared/app-error";

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

export const ZAssistantConfig = z
	.object({
		provider: z.enum(PROVIDERS),
		model: z.string().min(1).max(200),
		systemPrompt: z.string().max(200_000),
		variables: z
			.array(ZPromptVariable)
			.max(100)
			.refine((variables) => new Set(variables.map((variable) => variable.name)).size === variables.length, "Variable names must be unique"),
		generation: ZGenerationConfig,
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
	})
	.strict();

export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = {
	provider: "openai",
	model: "gpt-4o-mini",
	systemPrompt: "",
	variables: [],
	generation: {},
	knowledge: [],
};

/** Checks a whole config (draft after a patch); every offender is named, under `config.`. */
export function parseAssistantConfig(value: unknown): AssistantConfig {
	const parsed = ZAssistantConfig.safeParse(value);
	if (!parsed.success) {
		throw AppError.validation(parsed.error.issues.map((issue) => ({ field: ["config", ...issue.path].join("."), issue: issue.message })));
	}
	return parsed.data as AssistantConfig;
}
