import { c, metadata } from "../common";
import { ZSetOrganizationMcpAdministrationInput } from "../inputs/organizations";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };

/** An organization's settings (owners). */
export const organizationsContract = c.router({
	setOrganizationMcpAdministration: {
		method: "PUT",
		path: "/management/organizations/:organizationId/mcp-administration",
		summary: "Allows or disables administration over MCP (every mcp:admin tool) for the organization",
		pathParams: ZSetOrganizationMcpAdministrationInput.pick({ organizationId: true }),
		body: ZSetOrganizationMcpAdministrationInput.omit({ organizationId: true }),
		responses: { 200: z.object({ organizationId: z.string(), mcpAdministration: z.enum(["enabled", "disabled"]) }), ...errors },
		metadata: metadata({ operationId: "setOrganizationMcpAdministration", tags: ["Organizations"], session: "required" }),
	},
});
