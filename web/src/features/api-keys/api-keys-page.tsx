import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { CheckboxField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { apiKeysKey, apiKeysQuery } from "./api-keys-queries";
import { CreateApiKeyDialog } from "./create-api-key-dialog";

/** The workspace's API keys: list, create (the secret shown once), revoke. Admins and owners only. */
export function ApiKeysPage() {
	const { organization, workspace, role } = useWorkspace();
	const allowed = roleAtLeast(role, "admin");
	const queryClient = useQueryClient();
	const [showRevoked, setShowRevoked] = useState(false);
	const keys = useQuery({ ...apiKeysQuery(workspace.id, showRevoked), enabled: allowed });
	const [revokedName, setRevokedName] = useState<string | null>(null);
	const revoke = useMutation({
		mutationFn: async (key: { id: string; name: string }) => unwrap(await managementApi.keys.revokeApiKey({ params: { workspaceId: workspace.id, apiKeyId: key.id } })),
		onSuccess: async (_revoked, key) => {
			setRevokedName(key.name);
			await queryClient.invalidateQueries({ queryKey: apiKeysKey(workspace.id) });
		},
	});
	const header = (
		<PageHeader
			title="API keys"
			description={`Keys your programs use to call the runtime and knowledge APIs of ${workspace.name}. Each key has scopes; revoking one stops it at its next request.`}
			actions={allowed ? <CreateApiKeyDialog workspaceId={workspace.id} /> : null}
		/>
	);
	if (!allowed) {
		return (
			<>
				{header}
				<Alert tone="info" title="Only admins and owners manage API keys.">
					<p>
						Your role in {organization.name} is {role}. Ask an admin or owner for a key, or to change your role.
					</p>
				</Alert>
			</>
		);
	}
	return (
		<>
			{header}
			{revokedName ? <Alert tone="success">The key “{revokedName}” was revoked: its next request is refused, on every server.</Alert> : null}
			<CheckboxField label="Show revoked keys" checked={showRevoked} onChange={(event) => setShowRevoked(event.target.checked)} />
			{keys.isPending ? <LoadingState label="Loading API keys" /> : null}
			<ErrorAlert error={keys.error} />
			{keys.data && keys.data.length === 0 ? (
				<EmptyState title="No API keys yet.">
					<p>Create one for each program that calls the API, so that you can revoke one without stopping the others.</p>
				</EmptyState>
			) : null}
			{keys.data && keys.data.length > 0 ? (
				<Table
					caption="API keys"
					head={
						<>
							<th scope="col">Name</th>
							<th scope="col">Key</th>
							<th scope="col">Scopes</th>
							<th scope="col">Created</th>
							<th scope="col">Last used</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{keys.data.map((key) => (
						<tr key={key.id}>
							<td>
								<strong>{key.name}</strong>
								{key.revokedAt ? (
									<div>
										<Badge tone="danger">Revoked</Badge> <span className="muted small">{formatDateTime(key.revokedAt)}</span>
									</div>
								) : null}
							</td>
							<td>
								<code>{key.keyPrefix}…</code>
							</td>
							<td>
								<div className="row">
									{key.scopes.map((scope) => (
										<Badge key={scope} tone="info">
											{scope}
										</Badge>
									))}
								</div>
							</td>
							<td>{formatDateTime(key.createdAt)}</td>
							<td>{formatDateTime(key.lastUsedAt)}</td>
							<td>
								{key.revokedAt ? null : (
									<ConfirmDialog
										trigger={
											<Button variant="danger" size="small" aria-label={`Revoke ${key.name}`}>
												Revoke
											</Button>
										}
										title={`Revoke “${key.name}”?`}
										description={
											<p>
												Programs using <code>{key.keyPrefix}…</code> get 401 INVALID_CREDENTIALS from their next request, on every server. This cannot be undone.
											</p>
										}
										confirmLabel="Revoke key"
										destructive
										onConfirm={() => revoke.mutateAsync({ id: key.id, name: key.name })}
									/>
								)}
							</td>
						</tr>
					))}
				</Table>
			) : null}
		</>
	);
}
