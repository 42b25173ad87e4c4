import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast } from "../../app/workspace-context";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { useOrganization } from "../organization/organization-context";
import { sessionQuery, useSession } from "../session/session-query";
import { ChangeRoleDialog } from "./change-role-dialog";
import { InviteDialog } from "./invite-dialog";
import { invitationsQuery, membersQuery } from "./members-queries";

/** The organization's members and their roles, and invitations to join. Admins and owners only; ownership is the owners'. */
export function MembersPage() {
	const { organization, role } = useOrganization();
	const allowed = roleAtLeast(role, "admin");
	const header = (
		<PageHeader
			title="Members"
			description={`Who belongs to ${organization.name}, with which role. A change applies from the person's next request.`}
			actions={allowed ? <InviteDialog organizationId={organization.id} organizationName={organization.name} mayInviteOwner={role === "owner"} /> : null}
		/>
	);
	if (!allowed) {
		return (
			<>
				{header}
				<Alert tone="info" title="Only admins and owners manage members.">
					<p>Your role in {organization.name} is {role}.</p>
				</Alert>
			</>
		);
	}
	return (
		<>
			{header}
			<MembersSection organizationId={organization.id} organizationName={organization.name} myRole={role} />
			<InvitationsSection organizationId={organization.id} />
		</>
	);
}

function MembersSection({ organizationId, organizationName, myRole }: { organizationId: string; organizationName: string; myRole: string }) {
	const session = useSession();
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const members = useQuery(membersQuery(organizationId));
	const [removed, setRemoved] = useState<string | null>(null);
	const remove = useMutation({
		mutationFn: async (member: { userId: string; email: string }) => unwrap(await managementApi.members.removeMember({ params: { organizationId, userId: member.userId } })),
		onSuccess: async (_removed, member) => {
			if (member.userId === session?.user.id) {
				// Left the organization: nothing here is theirs any more.
				await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
				await navigate({ to: "/" });
				return;
			}
			setRemoved(member.email);
			await queryClient.invalidateQueries({ queryKey: membersQuery(organizationId).queryKey });
		},
	});
	const owners = members.data?.filter((member) => member.role === "owner").length ?? 0;
	const isOwner = myRole === "owner";
	/** Why a member's role cannot be changed or they cannot be removed by this person, if so. */
	const lockedBecause = (member: { role: string }) => {
		if (member.role === "owner" && !isOwner) return "Only owners change or remove an owner.";
		if (member.role === "owner" && owners <= 1) return "The last owner: make someone else owner first.";
		return undefined;
	};
	return (
		<Section title="Members">
			{removed ? <Alert tone="success">{removed} was removed from {organizationName}; their sessions stop reaching it at their next request.</Alert> : null}
			{members.isPending ? <LoadingState label="Loading members" /> : null}
			<ErrorAlert error={members.error} />
			{members.data ? (
				<Table
					caption="Members"
					head={
						<>
							<th scope="col">Member</th>
							<th scope="col">Role</th>
							<th scope="col">Joined</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{members.data.map((member) => {
						const isSelf = member.userId === session?.user.id;
						const locked = lockedBecause(member);
						return (
							<tr key={member.userId}>
								<td>
									<strong>{member.name ?? member.email}</strong>
									{isSelf ? <span className="muted"> (you)</span> : null}
									{member.name ? <div className="muted small">{member.email}</div> : null}
								</td>
								<td>
									<Badge tone={member.role === "owner" ? "info" : "neutral"}>{member.role}</Badge>
								</td>
								<td>{formatDateTime(member.joinedAt)}</td>
								<td>
									{locked ? (
										<span className="muted small">{locked}</span>
									) : (
										<div className="row">
											<ChangeRoleDialog organizationId={organizationId} member={member} mayGrantOwner={isOwner} isSelf={isSelf} />
											<ConfirmDialog
												trigger={
													<Button variant="danger" size="small" aria-label={`Remove ${member.email}`}>
														{isSelf ? "Leave" : "Remove"}
													</Button>
												}
												title={isSelf ? `Leave ${organizationName}?` : `Remove ${member.email}?`}
												description={
													<p>
														{isSelf ? "You" : member.email} lose access to {organizationName} and its workspaces at the next request, in every browser and connected application. The account
														stays; an invitation brings it back.
													</p>
												}
												confirmLabel={isSelf ? "Leave" : "Remove member"}
												destructive
												onConfirm={() => remove.mutateAsync(member)}
											/>
										</div>
									)}
								</td>
							</tr>
						);
					})}
				</Table>
			) : null}
		</Section>
	);
}

function InvitationsSection({ organizationId }: { organizationId: string }) {
	const queryClient = useQueryClient();
	const invitations = useQuery(invitationsQuery(organizationId));
	const revoke = useMutation({
		mutationFn: async (invitationId: string) => unwrap(await managementApi.invitations.revokeInvitation({ params: { organizationId, invitationId } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: invitationsQuery(organizationId).queryKey }),
	});
	return (
		<Section title="Invitations" description="Links not used yet. Each works once, for 7 days; inviting the same email again replaces its link.">
			{invitations.isPending ? <LoadingState label="Loading invitations" /> : null}
			<ErrorAlert error={invitations.error} />
			{invitations.data && invitations.data.length === 0 ? <EmptyState title="No pending invitations." /> : null}
			{invitations.data && invitations.data.length > 0 ? (
				<Table
					caption="Invitations"
					head={
						<>
							<th scope="col">Email</th>
							<th scope="col">Role</th>
							<th scope="col">Invited by</th>
							<th scope="col">Expires</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{invitations.data.map((invitation) => (
						<tr key={invitation.id}>
							<td>{invitation.email}</td>
							<td>
								<Badge>{invitation.role}</Badge>
							</td>
							<td>{invitation.invitedByEmail ?? <span className="muted">—</span>}</td>
							<td>{invitation.status === "expired" ? <Badge tone="warning">Expired {formatDateTime(invitation.expiresAt)}</Badge> : formatDateTime(invitation.expiresAt)}</td>
							<td>
								{invitation.status === "pending" ? (
									<ConfirmDialog
										trigger={
											<Button variant="danger" size="small" aria-label={`Revoke the invitation of ${invitation.email}`}>
												Revoke
											</Button>
										}
										title={`Revoke the invitation of ${invitation.email}?`}
										description={<p>The link stops working: opening it says it was withdrawn.</p>}
										confirmLabel="Revoke invitation"
										destructive
										onConfirm={() => revoke.mutateAsync(invitation.id)}
									/>
								) : null}
							</td>
						</tr>
					))}
				</Table>
			) : null}
		</Section>
	);
}
