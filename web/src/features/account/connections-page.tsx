import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { CheckboxField } from "../../ui/field";
import { ConfirmDialog } from "../../ui/dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";

export const connectionsQuery = queryOptions({
	queryKey: ["account", "connections"],
	queryFn: async () => unwrap(await managementApi.account.listConnections()).data,
});

const SCOPE_NAMES: Record<string, string> = { "mcp:read": "Read", "mcp:write": "Write", "mcp:admin": "Administer" };

/** Connected applications: the MCP clients a person approved, and revoking them. */
export function ConnectionsPage() {
	const queryClient = useQueryClient();
	const connections = useQuery(connectionsQuery);
	const [showEnded, setShowEnded] = useState(false);
	const isActive = (connection: { revokedAt: string | null; expiresAt: string | null }) => connection.revokedAt === null && connection.expiresAt !== null;
	const ended = connections.data?.filter((connection) => !isActive(connection)).length ?? 0;
	const shown = connections.data?.filter((connection) => showEnded || isActive(connection));
	const revoke = useMutation({
		mutationFn: async (connectionId: string) => unwrap(await managementApi.account.revokeConnection({ params: { connectionId } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: connectionsQuery.queryKey }),
	});
	return (
		<>
			<PageHeader
				title="Connected applications"
				description="MCP clients you approved to act for you. Revoking one stops its access at its next request, on every server."
			/>
			{connections.isPending ? <LoadingState label="Loading connections" /> : null}
			<ErrorAlert error={connections.error} />
			{ended > 0 ? <CheckboxField label={`Show revoked and ended connections (${ended})`} checked={showEnded} onChange={(event) => setShowEnded(event.target.checked)} /> : null}
			{revoke.isSuccess ? <Alert tone="success">The application was disconnected.</Alert> : null}
			{shown && shown.length === 0 ? (
				<EmptyState title="No application is connected to your account.">
					<p>Point an MCP client at this server's /mcp address; you approve it here, on the consent screen.</p>
				</EmptyState>
			) : null}
			{shown && shown.length > 0 ? (
				<Table
					caption="Connected applications"
					head={
						<>
							<th scope="col">Application</th>
							<th scope="col">Organization</th>
							<th scope="col">Access</th>
							<th scope="col">Connected</th>
							<th scope="col">Last used</th>
							<th scope="col">Status</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{shown.map((connection) => {
						const name = connection.clientName ?? connection.clientId;
						const active = isActive(connection);
						return (
							<tr key={connection.id}>
								<td>
									<strong>{name}</strong>
									{connection.clientName ? <div className="muted small identifier">{connection.clientId}</div> : null}
									<div className="muted small identifier">{connection.id}</div>
								</td>
								<td>{connection.organizationId === null ? "All your organizations" : (connection.organizationName ?? connection.organizationId)}</td>
								<td>{connection.scopes.map((scope) => SCOPE_NAMES[scope] ?? scope).join(", ")}</td>
								<td>{formatDateTime(connection.createdAt)}</td>
								<td>{formatDateTime(connection.lastUsedAt)}</td>
								<td>
									{connection.revokedAt ? <Badge tone="danger">Revoked</Badge> : active ? <Badge tone="success">Active</Badge> : <Badge>Ended (unused)</Badge>}
									{active && connection.expiresAt ? <div className="muted small">ends {formatDateTime(connection.expiresAt)} unless used</div> : null}
								</td>
								<td>
									{active ? (
										<ConfirmDialog
											trigger={
												<Button variant="danger" size="small" aria-label={`Revoke ${name} (${connection.id})`}>
													Revoke
												</Button>
											}
											title={`Revoke ${name}?`}
											description={`${name} will lose access at its next request and cannot refresh its tokens. To use it again, connect it again.`}
											confirmLabel="Revoke"
											destructive
											onConfirm={() => revoke.mutateAsync(connection.id)}
										/>
									) : null}
								</td>
							</tr>
						);
					})}
				</Table>
			) : null}
		</>
	);
}
