import type { FormEvent, ReactNode } from "react";
import { ApiError } from "../api/management-client";
import { FormErrorAlert } from "./alert";
import { Button } from "./button";
import { Dialog } from "./dialog";

/** The part of a TanStack mutation a form dialog drives: submit, pending, refusal, reset on close. */
export interface FormMutation {
	mutate: () => void;
	reset: () => void;
	isPending: boolean;
	error: unknown;
}

/**
 * A dialog holding one form that one mutation submits: the refusal above the form (each field's
 * issue goes next to its own input through `issue`), Cancel and the submit button, and a fresh
 * start (the refusal forgotten) each time it closes.
 */
export function FormDialog({
	open,
	setOpen,
	mutation,
	title,
	description,
	trigger,
	fields,
	submitLabel,
	onOpen,
	children,
}: {
	open: boolean;
	setOpen: (open: boolean) => void;
	mutation: FormMutation;
	title: ReactNode;
	description?: ReactNode;
	trigger: ReactNode;
	/** The fields this form has an input for; issues about any other field are listed above the form. */
	fields: readonly string[];
	submitLabel: string;
	/** Called as the dialog opens: an edit form starts from the current values, not the last try's. */
	onOpen?: () => void;
	children: (issue: (field: string) => string | undefined) => ReactNode;
}) {
	const issue = (field: string) => (mutation.error instanceof ApiError ? mutation.error.issueFor(field) : undefined);
	const submit = (event: FormEvent) => {
		event.preventDefault();
		mutation.mutate();
	};
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (next) onOpen?.();
				else mutation.reset();
			}}
			title={title}
			description={description}
			trigger={trigger}
		>
			<form onSubmit={submit} noValidate>
				<FormErrorAlert error={mutation.error} fieldsShown={(field) => fields.includes(field)} />
				{children(issue)}
				<div className="dialog-actions">
					<Button variant="secondary" onClick={() => setOpen(false)}>
						Cancel
					</Button>
					<Button type="submit" pending={mutation.isPending}>
						{submitLabel}
					</Button>
				</div>
			</form>
		</Dialog>
	);
}
