import { c, metadata } from "../common";
import { ZListMembersInput, ZRemoveMemberInput, ZUpdateMemberRoleInput } from "../inputs/members";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";
import { ZMembershipRole } from "./session";

export const ZMember = z
	.object({
		userId: z.string(),
		email: z.string(),
		name: z.string().nullable(),
		role: ZMembershipRole,
		joinedAt: z.string().datetime(),
	})
	.openapi("Member");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
/** The organization named in the path (an MCP connection may leave it to its binding; here it is always named). */
const memberPath = ZRemoveMemberInput.required({ organizationId: true });

/** An organization's members and their roles (admins and owners; only owners grant, take away or remove ownership). */
export const membersContract = c.router({
	listMembers: {
		method: "GET",
		path: "/management/organizations/:organizationId/members",
		summary: "The organization's members with their roles, by email",
		pathParams: ZListMembersInput.required({ organizationId: true }),
		responses: { 200: z.object({ data: z.array(ZMember) }), ...errors },
		metadata: metadata({ operationId: "listMembers", tags: ["Members"], session: "required" }),
	},
	updateMemberRole: {
		method: "PATCH",
		path: "/management/organizations/:organizationId/members/:userId",
		summary: "Changes a member's role, from their next request; the last owner cannot be demoted",
		pathParams: memberPath,
		body: ZUpdateMemberRoleInput.pick({ role: true }),
		responses: { 200: z.object({ userId: z.string(), role: ZMembershipRole }), ...errors },
		metadata: metadata({ operationId: "updateMemberRole", tags: ["Members"], session: "required" }),
	},
	removeMember: {
		method: "DELETE",
		path: "/management/organizations/:organizationId/members/:userId",
		summary: "Removes a member (their account stays); their sessions stop reaching the organization at their next request",
		pathParams: memberPath,
		body: c.noBody(),
		responses: { 200: z.object({ userId: z.string(), removed: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "removeMember", tags: ["Members"], session: "required" }),
	},
});
