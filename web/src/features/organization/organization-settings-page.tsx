import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { CheckboxField } from "../../ui/field";
import { PageHeader, Section } from "../../ui/page";
import { sessionQuery } from "../session/session-query";
import { useOrganization } from "./organization-context";

/** The organization's settings: whether applications connected over MCP may administer it. Owners change it; others see it. */
export function OrganizationSettingsPage() {
	const { organization, role } = useOrganization();
	const queryClient = useQueryClient();
	const isOwner = role === "owner";
	const enabled = organization.mcpAdministration === "enabled";
	const [wanted, setWanted] = useState(enabled);
	const save = useMutation({
		mutationFn: async (next: boolean) => unwrap(await managementApi.organizations.setOrganizationMcpAdministration({ params: { organizationId: organization.id }, body: { enabled: next } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
	});
	const submit = (event: FormEvent) => {
		event.preventDefault();
		save.mutate(wanted);
	};
	return (
		<>
			<PageHeader title="Organization settings" description={`${organization.name} · your role: ${role}`} />
			<Section
				title="Administration over MCP"
				description="Applications people connect over MCP (assistants in an IDE or a chat client) act with the person's role. This decides whether they may also use the administration tools: members, invitations, API keys and provider credentials."
			>
				<p>
					Now: <Badge tone={enabled ? "success" : "warning"}>{enabled ? "Allowed" : "Disabled"}</Badge>
				</p>
				{save.isSuccess ? <Alert tone="success">Saved: administration over MCP is {save.data.mcpAdministration === "enabled" ? "allowed" : "disabled"}, from the next tool call.</Alert> : null}
				<ErrorAlert error={save.error} />
				<form onSubmit={submit}>
					<CheckboxField
						label="Allow administration over MCP"
						description={
							isOwner
								? "When off, every administration tool is refused in this organization, whatever the person's role. The dashboard and the operator CLI are not affected."
								: "Only owners change this setting."
						}
						checked={wanted}
						disabled={!isOwner}
						onChange={(event) => setWanted(event.target.checked)}
					/>
					{isOwner ? (
						<Button type="submit" pending={save.isPending} disabled={wanted === enabled}>
							Save
						</Button>
					) : null}
				</form>
			</Section>
		</>
	);
}
