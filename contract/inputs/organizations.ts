import { z } from "../zod";

/** The organization's settings (server/modules/oauth/set-organization-mcp-administration.ts): owners and the operator change them. */
export const ZSetOrganizationMcpAdministrationInput = z
	.object({
		organizationId: z.string().min(1).max(100).describe("The organization (list_organizations)"),
		enabled: z.boolean().describe("Whether mcp:admin tools may run for the organization; false refuses them whatever the caller's role"),
	})
	.strict();
