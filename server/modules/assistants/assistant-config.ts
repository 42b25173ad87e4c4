import { z } from "zod";
import { ZGenerationConfig } from "../../../contract/schemas/runtime";
import { type AssistantConfig, PROVIDERS } from "../../db/entities";
import { AppError } from "../../shared/app-error";

const ZVariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Letters, digits and underscores, not starting with a digit");

export const ZPromptVariable = z
	.object({
		name: ZVariableName,
		type: z.enum(["string", "number", "boolean"]),
		required: z.boolean().default(false),
		default: z.union([z.string(), z.number(), z.boolean()]).optional(),
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
		knowledge: z.array(z.object({ sourceId: z.string().min(1), topK: z.number().int().min(1).max(50), minScore: z.number().optional() }).strict()).max(20),
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
