import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { CopyButton } from "../../ui/copy-button";
import { Dialog } from "../../ui/dialog";
import { CheckboxField, TextField } from "../../ui/field";
import { API_KEY_SCOPES, type ApiKeyScope, apiKeysKey, SCOPE_DESCRIPTIONS } from "./api-keys-queries";

/** Creates a key with the scopes chosen, then shows its secret this once, with a copy button and a warning. */
export function CreateApiKeyDialog({ workspaceId }: { workspaceId: string }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState("");
	const [scopes, setScopes] = useState<ApiKeyScope[]>(["runtime:execute"]);
	const create = useMutation({
		mutationFn: async () => unwrap(await managementApi.keys.createApiKey({ params: { workspaceId }, body: { name, scopes } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey(workspaceId) }),
	});
	const error = create.error instanceof ApiError ? create.error : undefined;
	const scopesIssue = error?.fields.find((field) => field.field.startsWith("scopes") || field.field.startsWith("body.scopes"))?.issue;
	const reset = () => {
		setName("");
		setScopes(["runtime:execute"]);
		create.reset();
	};
	const close = () => {
		setOpen(false);
		reset();
	};
	const submit = (event: FormEvent) => {
		event.preventDefault();
		create.mutate();
	};
	const created = create.data;
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (!next) reset();
			}}
			trigger={<Button>Create API key</Button>}
			title={created ? "Your new API key" : "Create an API key"}
			description={created ? undefined : "Programs send it as 'Authorization: Bearer …' to the runtime and knowledge APIs of this workspace."}
		>
			{created ? (
				<div className="stack">
					<Alert tone="warning" title="Copy the key now: it is shown only this once.">
						<p>
							Afterwards this page shows only its beginning, <code>{created.keyPrefix}…</code>. Store it where your program reads its secrets; if it is lost, create
							another key and revoke this one.
						</p>
					</Alert>
					<TextField label="API key" name="secret" value={created.key} readOnly onFocus={(event) => event.currentTarget.select()} className="input mono" />
					<div className="dialog-actions">
						<CopyButton value={created.key} label="Copy key" />
						<Button variant="secondary" onClick={close}>
							Done
						</Button>
					</div>
				</div>
			) : (
				<form onSubmit={submit} noValidate>
					<ErrorAlert error={error && error.fields.length > 0 ? undefined : create.error} />
					<TextField
						label="Name"
						description="What the key is for, e.g. 'CI' or 'Support bot (production)'."
						value={name}
						onChange={(event) => setName(event.target.value)}
						error={error?.issueFor("name")}
						maxLength={200}
						required
						autoComplete="off"
					/>
					<fieldset aria-describedby={scopesIssue ? "scopes-error" : undefined}>
						<legend>Scopes</legend>
						{API_KEY_SCOPES.map((scope) => (
							<CheckboxField
								key={scope}
								label={scope}
								description={SCOPE_DESCRIPTIONS[scope]}
								checked={scopes.includes(scope)}
								onChange={(event) => setScopes((current) => (event.target.checked ? [...current, scope] : current.filter((candidate) => candidate !== scope)))}
							/>
						))}
						{scopesIssue ? (
							<p id="scopes-error" className="field-error">
								{scopesIssue}
							</p>
						) : null}
					</fieldset>
					<div className="dialog-actions">
						<Button variant="secondary" onClick={close}>
							Cancel
						</Button>
						<Button type="submit" pending={create.isPending}>
							Create key
						</Button>
					</div>
				</form>
			)}
		</Dialog>
	);
}
