import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { formatDateTime } from "../../ui/format";
import { PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { PROVIDERS, type ProviderId, providerCredentialsQuery } from "./provider-credentials-queries";
import { SetCredentialDialog } from "./set-credential-dialog";

type Outcome = { provider: ProviderId; tone: "success" | "error"; title: string; text: string };

/** The workspace's model-provider keys: set or replace, test, delete. The key itself is never shown. Admins and owners only. */
export function ProviderCredentialsPage() {
	const { organization, workspace, role } = useWorkspace();
	const allowed = roleAtLeast(role, "admin");
	const queryClient = useQueryClient();
	const credentials = useQuery({ ...providerCredentialsQuery(workspace.id), enabled: allowed });
	const [outcome, setOutcome] = useState<Outcome | null>(null);
	const nameOf = (provider: ProviderId) => PROVIDERS.find((candidate) => candidate.id === provider)?.name ?? provider;
	const test = useMutation({
		mutationFn: async (provider: ProviderId) => unwrap(await managementApi.credentials.testProviderCredential({ params: { workspaceId: workspace.id, provider } })),
		onMutate: () => setOutcome(null),
		onSuccess: (result, provider) =>
			setOutcome({
				provider,
				tone: result.works ? "success" : "error",
				title: `${nameOf(provider)}: ${result.works ? "the key works" : "the key does not work"}`,
				text: result.works && result.models.length > 0 ? `${result.message} For example: ${result.models.join(", ")}.` : result.message,
			}),
		onError: (error, provider) => setOutcome({ provider, tone: "error", title: `${nameOf(provider)}: the test could not run`, text: error.message }),
	});
	const remove = useMutation({
		mutationFn: async (provider: ProviderId) => unwrap(await managementApi.credentials.deleteProviderCredential({ params: { workspaceId: workspace.id, provider } })),
		onSuccess: async (_deleted, provider) => {
			setOutcome({ provider, tone: "success", title: `${nameOf(provider)}: the key was deleted`, text: "Generations with this provider are refused from the next one." });
			await queryClient.invalidateQueries({ queryKey: providerCredentialsQuery(workspace.id).queryKey });
		},
	});
	const header = (
		<PageHeader
			title="Provider credentials"
			description={`The model providers' API keys ${workspace.name} generates with. Keys are stored encrypted; after saving, only their last four characters are shown.`}
		/>
	);
	if (!allowed) {
		return (
			<>
				{header}
				<Alert tone="info" title="Only admins and owners manage provider credentials.">
					<p>Your role in {organization.name} is {role}.</p>
				</Alert>
			</>
		);
	}
	return (
		<>
			{header}
			{credentials.isPending ? <LoadingState label="Loading provider credentials" /> : null}
			<ErrorAlert error={credentials.error} />
			{test.isPending && test.variables ? <LoadingState label={`Testing the ${nameOf(test.variables)} key`} /> : null}
			{outcome ? (
				<Alert tone={outcome.tone} title={outcome.title}>
					<p>{outcome.text}</p>
				</Alert>
			) : null}
			{credentials.data ? (
				<Table
					caption="Provider credentials"
					head={
						<>
							<th scope="col">Provider</th>
							<th scope="col">Key</th>
							<th scope="col">Base URL</th>
							<th scope="col">Updated</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{PROVIDERS.map((provider) => {
						const stored = credentials.data.find((credential) => credential.provider === provider.id);
						return (
							<tr key={provider.id}>
								<th scope="row">{provider.name}</th>
								<td>
									{stored ? (
										<>
											<span className="visually-hidden">Key ending in </span>
											<code>
												<span aria-hidden="true">••••</span>
												{stored.apiKeyHint}
											</code>
										</>
									) : (
										<Badge>Not set</Badge>
									)}
								</td>
								<td className="break">{stored ? (stored.baseUrl ?? <span className="muted">Provider's default</span>) : null}</td>
								<td>{stored ? formatDateTime(stored.updatedAt) : null}</td>
								<td>
									<div className="row">
										<SetCredentialDialog
											workspaceId={workspace.id}
											provider={provider.id}
											currentBaseUrl={stored?.baseUrl ?? null}
											replacing={stored !== undefined}
											onSaved={(hint) => setOutcome({ provider: provider.id, tone: "success", title: `${provider.name}: the key ending in ${hint} was saved`, text: "Test it to check that the provider accepts it." })}
										/>
										{stored ? (
											<>
												<Button
													variant="secondary"
													size="small"
													aria-label={`Test the ${provider.name} key`}
													pending={test.isPending && test.variables === provider.id}
													disabled={test.isPending}
													onClick={() => test.mutate(provider.id)}
												>
													Test
												</Button>
												<ConfirmDialog
													trigger={
														<Button variant="danger" size="small" aria-label={`Delete the ${provider.name} key`}>
															Delete
														</Button>
													}
													title={`Delete the ${provider.name} key?`}
													description={<p>Generations, knowledge embeddings and evaluations with {provider.name} are refused from the next call until a key is set again.</p>}
													confirmLabel="Delete key"
													destructive
													onConfirm={() => remove.mutateAsync(provider.id)}
												/>
											</>
										) : null}
									</div>
								</td>
							</tr>
						);
					})}
				</Table>
			) : null}
		</>
	);
}
