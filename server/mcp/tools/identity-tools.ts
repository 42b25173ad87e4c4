import { z } from "zod";
import { describeCaller } from "../../modules/tenancy/describe-caller";
import { listOrganizations } from "../../modules/tenancy/list-organizations";
import { listWorkspaces } from "../../modules/tenancy/list-workspaces";
import { MEMBER_ROLES } from "../../db/entities";
import { defineTool, type McpTool, READ_ONLY } from "../tool-definition";
import { nullable, organizationId, timestamp } from "./fields";

const whoami = defineTool({
	name: "whoami",
	title: "Who am I",
	description:
		"Describes this connection: the signed-in user, the OAuth client and connection, the organization it is bound to (or all of the user's organizations) and the granted scopes. Call it first to learn which organization and scopes you act with.",
	inputSchema: {},
	outputSchema: {
		user: z.object({ id: z.string(), email: z.string(), name: nullable(z.string()) }).describe("The signed-in user"),
		clientId: z.string().describe("The OAuth client (application) of this connection"),
		connectionId: z.string().describe("The approved connection; revoking it stops this token"),
		organization: z.object({ id: z.string(), name: z.string() }).nullable().describe("The bound organization; null when the connection spans all of the user's organizations"),
		organizationId: nullable(z.string()).describe("The bound organization's id; null for all organizations"),
		allOrganizations: z.boolean().describe("True when tools take an organizationId to choose among the user's organizations"),
		scopes: z.array(z.string()).describe("Granted scopes: mcp:read, mcp:write, mcp:admin"),
	},
	annotations: READ_ONLY,
	permission: null,
	run: async (context) => {
		const caller = await describeCaller(context);
		return { ...caller, organizationId: caller.organization?.id ?? null };
	},
});

const listOrganizationsTool = defineTool({
	name: "list_organizations",
	title: "List organizations",
	description: "The organizations this connection can act on, with your role in each: the bound one, or all of yours for an all-organizations connection.",
	inputSchema: {},
	outputSchema: {
		organizations: z.array(
			z.object({
				id: z.string(),
				name: z.string(),
				role: z.enum(MEMBER_ROLES).nullable().describe("Your role there"),
				mcpAdministrationDisabled: z.boolean().describe("True when an owner switched off the mcp:admin tools for this organization"),
			}),
		),
	},
	annotations: READ_ONLY,
	permission: null,
	run: async (context) => ({ organizations: await listOrganizations(context) }),
});

const listWorkspacesTool = defineTool({
	name: "list_workspaces",
	title: "List workspaces",
	description: "The organization's workspaces; every assistant, knowledge, trace and key tool takes one of these ids as workspaceId.",
	inputSchema: { organizationId },
	outputSchema: { workspaces: z.array(z.object({ id: z.string(), organizationId: z.string(), name: z.string(), createdAt: timestamp() })) },
	annotations: READ_ONLY,
	permission: "workspace:read",
	run: async (context, input) => ({ workspaces: await listWorkspaces(context, input) }),
});

export const IDENTITY_TOOLS: McpTool[] = [whoami, listOrganizationsTool, listWorkspacesTool];
