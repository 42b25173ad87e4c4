import { z } from "../zod";
import { MEMBER_ROLES, organizationId } from "./fields";

/** The inputs of server/modules/members: the MCP tools, the operator CLI and the dashboard's routes all take these. */
const userId = z.string().min(1).max(100).describe("The member's user id (list_members)");

export const ZListMembersInput = z.object({ organizationId }).strict();

export const ZUpdateMemberRoleInput = z
	.object({
		organizationId,
		userId,
		role: z.enum(MEMBER_ROLES).describe("The new role"),
	})
	.strict();

export const ZRemoveMemberInput = z.object({ organizationId, userId }).strict();
