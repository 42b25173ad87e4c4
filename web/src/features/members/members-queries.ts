import { queryOptions } from "@tanstack/react-query";
import { managementApi, unwrap } from "../../api/management-client";

export const membersQuery = (organizationId: string) =>
	queryOptions({
		queryKey: ["organizations", organizationId, "members"],
		queryFn: async () => unwrap(await managementApi.members.listMembers({ params: { organizationId } })).data,
	});

export const invitationsQuery = (organizationId: string) =>
	queryOptions({
		queryKey: ["organizations", organizationId, "invitations"],
		queryFn: async () => unwrap(await managementApi.invitations.listInvitations({ params: { organizationId } })).data,
	});

export const ROLES = [
	{ id: "owner", description: "Everything, including the organization's settings and who else is an owner" },
	{ id: "admin", description: "Members, API keys and provider credentials, and all a member does" },
	{ id: "member", description: "Build: assistants, knowledge, evaluations, generations" },
	{ id: "viewer", description: "Read everything, change nothing" },
] as const;

export type RoleId = (typeof ROLES)[number]["id"];
