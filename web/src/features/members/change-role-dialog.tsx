import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { SelectField } from "../../ui/field";
import { sessionQuery } from "../session/session-query";
import { membersQuery, ROLES, type RoleId } from "./members-queries";

/** Changes one member's role, effective from their next request; owners alone are offered the owner role. */
export function ChangeRoleDialog({
	organizationId,
	member,
	mayGrantOwner,
	isSelf,
}: {
	organizationId: string;
	member: { userId: string; email: string; role: RoleId };
	mayGrantOwner: boolean;
	isSelf: boolean;
}) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [role, setRole] = useState<RoleId>(member.role);
	const change = useMutation({
		mutationFn: async () => unwrap(await managementApi.members.updateMemberRole({ params: { organizationId, userId: member.userId }, body: { role } })),
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: membersQuery(organizationId).queryKey });
			// One's own role decides what the dashboard offers.
			if (isSelf) await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
			close();
		},
	});
	const close = () => {
		setOpen(false);
		setRole(member.role);
		change.reset();
	};
	const submit = (event: FormEvent) => {
		event.preventDefault();
		change.mutate();
	};
	const choices = ROLES.filter((candidate) => mayGrantOwner || candidate.id !== "owner");
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => (next ? setOpen(true) : close())}
			trigger={
				<Button variant="secondary" size="small" aria-label={`Change the role of ${member.email}`}>
					Change role
				</Button>
			}
			title={`Change the role of ${member.email}`}
			description="The new role applies from their next request, in every browser and connected application."
		>
			<form onSubmit={submit} noValidate>
				<ErrorAlert error={change.error} />
				<SelectField
					label="Role"
					description={ROLES.find((candidate) => candidate.id === role)?.description}
					value={role}
					onChange={(event) => setRole(event.target.value as RoleId)}
				>
					{choices.map((candidate) => (
						<option key={candidate.id} value={candidate.id}>
							{candidate.id}
						</option>
					))}
				</SelectField>
				{isSelf && role !== member.role ? <p className="field-description">This is your own role: you may lose access to this page.</p> : null}
				<div className="dialog-actions">
					<Button variant="secondary" onClick={close}>
						Cancel
					</Button>
					<Button type="submit" pending={change.isPending} disabled={role === member.role}>
						Save role
					</Button>
				</div>
			</form>
		</Dialog>
	);
}
