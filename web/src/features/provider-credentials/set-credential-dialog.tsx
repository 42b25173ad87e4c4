import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { TextField } from "../../ui/field";
import { PROVIDERS, type ProviderId, providerCredentialsQuery } from "./provider-credentials-queries";

/** Sets or replaces a provider's key; the key goes to the server once and is never shown again (only its last four characters). */
export function SetCredentialDialog({
	workspaceId,
	provider,
	currentBaseUrl,
	replacing,
	onSaved,
}: {
	workspaceId: string;
	provider: ProviderId;
	currentBaseUrl: string | null;
	replacing: boolean;
	onSaved: (hint: string) => void;
}) {
	const queryClient = useQueryClient();
	const details = PROVIDERS.find((candidate) => candidate.id === provider) ?? PROVIDERS[0];
	const [open, setOpen] = useState(false);
	const [apiKey, setApiKey] = useState("");
	const [baseUrl, setBaseUrl] = useState(currentBaseUrl ?? "");
	const save = useMutation({
		mutationFn: async () =>
			unwrap(await managementApi.credentials.setProviderCredential({ params: { workspaceId, provider }, body: { apiKey, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}) } })),
		onSuccess: async (saved) => {
			await queryClient.invalidateQueries({ queryKey: providerCredentialsQuery(workspaceId).queryKey });
			close();
			onSaved(saved.apiKeyHint);
		},
	});
	const close = () => {
		setOpen(false);
		setApiKey("");
		setBaseUrl(currentBaseUrl ?? "");
		save.reset();
	};
	const error = save.error instanceof ApiError ? save.error : undefined;
	const submit = (event: FormEvent) => {
		event.preventDefault();
		save.mutate();
	};
	const action = replacing ? "Replace key" : "Set key";
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				if (!next) return close();
				// Replacing a key keeps the base URL unless it is changed here.
				setBaseUrl(currentBaseUrl ?? "");
				setOpen(true);
			}}
			trigger={
				<Button variant="secondary" size="small" aria-label={`${action} for ${details.name}`}>
					{action}
				</Button>
			}
			title={`${details.name} credential`}
			description="The key is stored encrypted and used by this workspace's generations from the very next one. It is never shown again: only its last four characters."
		>
			<form onSubmit={submit} noValidate>
				<ErrorAlert error={error && error.fields.length > 0 ? undefined : save.error} />
				<TextField
					label="API key"
					type="password"
					autoComplete="off"
					spellCheck={false}
					value={apiKey}
					onChange={(event) => setApiKey(event.target.value)}
					error={error?.issueFor("apiKey")}
					maxLength={1000}
					required
				/>
				<TextField
					label="Base URL"
					optional={provider !== "openai-compatible"}
					description={details.baseUrl}
					type="url"
					inputMode="url"
					spellCheck={false}
					value={baseUrl}
					onChange={(event) => setBaseUrl(event.target.value)}
					error={error?.issueFor("baseUrl")}
					maxLength={2000}
				/>
				<div className="dialog-actions">
					<Button variant="secondary" onClick={close}>
						Cancel
					</Button>
					<Button type="submit" pending={save.isPending}>
						Save key
					</Button>
				</div>
			</form>
		</Dialog>
	);
}
