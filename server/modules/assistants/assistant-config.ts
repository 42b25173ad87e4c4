import { ZAssistantConfig } from "../../../contract/inputs/assistants";
import type { AssistantConfig } from "../../db/entities";
import { AppError } from "../../shared/app-error";

// The schemas live with the inputs that carry them (contract/inputs/assistants.ts).
export { ZAssistantConfig, ZPromptVariable, ZVariableValue } from "../../../contract/inputs/assistants";

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
