import { z } from "../zod";
import { SECRET_NAME_PATTERN } from "./assistant-tools";
import { workspaceId } from "./fields";

/** The inputs of server/modules/workspace-secrets: the MCP tools and the operator CLI take these. */
const secretName = () =>
	z
		.string()
		.regex(SECRET_NAME_PATTERN, "Letters, digits and underscores, not starting with a digit, at most 64 characters")
		.describe("The secret's name, referenced in tool headers as {{secret:NAME}}");

export const ZListSecretsInput = z.object({ workspaceId }).strict();

export const ZSetSecretInput = z
	.object({
		workspaceId,
		name: secretName(),
		value: z.string().min(1, "Required").max(8000).describe("The secret value (an API key, a token); stored encrypted, never shown again"),
	})
	.strict();

export const ZDeleteSecretInput = z.object({ workspaceId, name: secretName() }).strict();
