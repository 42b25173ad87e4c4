import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { CopyButton } from "../../ui/copy-button";
import { Dialog } from "../../ui/dialog";
import { SelectField, TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { invitationsQuery, ROLES, type RoleId } from "./members-queries";

/** Creates an invitation link (single-use, 7 days) and shows it once, to pass on: no email is sent. */
export function InviteDialog({ organizationId, organizationName, mayInviteOwner }: { organizationId: string; organizationName: string; mayInviteOwner: boolean }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [email, setEmail] = useState("");
	const [role, setRole] = useState<RoleId>("member");
	const invite = useMutation({
		mutationFn: async () => unwrap(await managementApi.invitations.createInvitation({ params: { organizationId }, body: { email, role } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: invitationsQuery(organizationId).queryKey }),
	});
	const close = () => {
		setOpen(false);
		setEmail("");
		setRole("member");
		invite.reset();
	};
	const submit = (event: FormEvent) => {
		event.preventDefault();
		invite.mutate();
	};
	const error = invite.error instanceof ApiError ? invite.error : undefined;
	const created = invite.data;
	// Built on the address this dashboard was reached at, which is where the person will open it.
	const link = created ? `${window.location.origin}/invitations/${created.token}` : "";
	const choices = ROLES.filter((candidate) => mayInviteOwner || candidate.id !== "owner");
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => (next ? setOpen(true) : close())}
			trigger={<Button>Invite someone</Button>}
			title={created ? "Invitation link" : `Invite someone to ${organizationName}`}
			description={created ? undefined : "You get a link to send them yourself (no email is sent). It works once, for 7 days."}
		>
			{created ? (
				<div className="stack">
					<Alert tone="warning" title="Send this link to the person now: it is shown only this once.">
						<p>
							Whoever opens it can join {organizationName} as {created.role} until {formatDateTime(created.expiresAt)}, by choosing a password for {created.email} (or signing in, if
							that email has an account). It works once.
						</p>
					</Alert>
					<TextField label="Invitation link" value={link} readOnly onFocus={(event) => event.currentTarget.select()} className="input mono" />
					<div className="dialog-actions">
						<CopyButton value={link} label="Copy link" />
						<Button variant="secondary" onClick={close}>
							Done
						</Button>
					</div>
				</div>
			) : (
				<form onSubmit={submit} noValidate>
					<ErrorAlert error={error && error.fields.length > 0 ? undefined : invite.error} />
					<TextField
						label="Email"
						description="They sign in with this address."
						type="email"
						autoComplete="off"
						value={email}
						onChange={(event) => setEmail(event.target.value)}
						error={error?.issueFor("email")}
						maxLength={320}
						required
					/>
					<SelectField
						label="Role"
						description={ROLES.find((candidate) => candidate.id === role)?.description}
						value={role}
						onChange={(event) => setRole(event.target.value as RoleId)}
						error={error?.issueFor("role")}
					>
						{choices.map((candidate) => (
							<option key={candidate.id} value={candidate.id}>
								{candidate.id}
							</option>
						))}
					</SelectField>
					<div className="dialog-actions">
						<Button variant="secondary" onClick={close}>
							Cancel
						</Button>
						<Button type="submit" pending={invite.isPending}>
							Create invitation link
						</Button>
					</div>
				</form>
			)}
		</Dialog>
	);
}
