import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { SelectField } from "../../ui/field";
import { type AssistantDetails, type AssistantVersion, assistantsKey, type Environment } from "./assistant-queries";
import { FormErrorAlert } from "../../ui/alert";

/**
 * Publishing: pick a version and an environment; the dialog says, before anything changes, what
 * that environment serves now and what it will serve from the next call.
 */
export function PublishDialog({
	workspaceId,
	details,
	versions,
	environments,
	initialVersion,
	initialEnvironment = "production",
	trigger,
}: {
	workspaceId: string;
	details: AssistantDetails;
	versions: AssistantVersion[];
	environments: Environment[];
	initialVersion?: number;
	initialEnvironment?: string;
	trigger: ReactNode;
}) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [version, setVersion] = useState(String(initialVersion ?? versions[0]?.version ?? ""));
	const [environment, setEnvironment] = useState(initialEnvironment);
	const publish = useMutation({
		mutationFn: async () =>
			unwrap(await managementApi.assistants.publishAssistantVersion({ params: { workspaceId, slug: details.slug }, body: { version: Number(version), environment } })),
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
			setOpen(false);
		},
	});
	const current = details.deployments.find((deployment) => deployment.environment === environment);
	const chosen = versions.find((entry) => String(entry.version) === version);
	const submit = (event: FormEvent) => {
		event.preventDefault();
		publish.mutate();
	};
	const issue = (field: string) => (publish.error instanceof ApiError ? publish.error.issueFor(field) : undefined);
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (next) {
					setVersion(String(initialVersion ?? versions[0]?.version ?? ""));
					setEnvironment(initialEnvironment);
				}
				publish.reset();
			}}
			title={`Publish ${details.name}`}
			trigger={trigger}
		>
			<form onSubmit={submit} noValidate>
				<FormErrorAlert error={publish.error} fieldsShown={(field) => field === "version" || field === "environment"} />
				<SelectField label="Version" value={version} onChange={(event) => setVersion(event.target.value)} error={issue("version")}>
					{versions.map((entry) => (
						<option key={entry.version} value={String(entry.version)}>
							Version {entry.version}
							{entry.note ? `: ${entry.note}` : ""}
						</option>
					))}
				</SelectField>
				<SelectField label="Environment" value={environment} onChange={(event) => setEnvironment(event.target.value)} error={issue("environment")}>
					{environments.map((entry) => (
						<option key={entry.slug} value={entry.slug}>
							{entry.name} ({entry.slug})
						</option>
					))}
				</SelectField>
				<div className="alert alert-info" aria-live="polite">
					<p>
						<strong>
							{environment} will serve version {version}
							{chosen?.note ? ` (${chosen.note})` : ""}
						</strong>{" "}
						of <code>{details.slug}</code>, from the very next call on every server.
					</p>
					<p>
						{current ? `It serves version ${current.version} now${current.version === Number(version) ? ": publishing it again changes nothing callers see, but is recorded" : ""}.` : "Nothing is served there yet."}{" "}
						{details.archived ? "The assistant is archived: nothing is served until it is restored." : ""}
					</p>
				</div>
				<div className="dialog-actions">
					<Button variant="secondary" onClick={() => setOpen(false)}>
						Cancel
					</Button>
					<Button type="submit" pending={publish.isPending} disabled={!chosen}>
						Publish version {version} to {environment}
					</Button>
				</div>
			</form>
		</Dialog>
	);
}
