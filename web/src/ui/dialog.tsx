import { AlertDialog as AlertDialogPrimitive, Dialog as DialogPrimitive } from "radix-ui";
import { type ReactNode, useState } from "react";
import { ErrorAlert } from "./alert";
import { Button } from "./button";

/** A modal with a title (its accessible name) and an optional description; focus is trapped and returned. */
export function Dialog({
	open,
	onOpenChange,
	title,
	description,
	children,
	trigger,
}: {
	open?: boolean;
	onOpenChange?: (open: boolean) => void;
	title: ReactNode;
	description?: ReactNode;
	children: ReactNode;
	trigger?: ReactNode;
}) {
	return (
		<DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
			{trigger ? <DialogPrimitive.Trigger asChild>{trigger}</DialogPrimitive.Trigger> : null}
			<DialogPrimitive.Portal>
				<DialogPrimitive.Overlay className="dialog-overlay" />
				<DialogPrimitive.Content className="dialog" {...(description ? {} : { "aria-describedby": undefined })}>
					<DialogPrimitive.Title className="dialog-title">{title}</DialogPrimitive.Title>
					{description ? <DialogPrimitive.Description className="dialog-description">{description}</DialogPrimitive.Description> : null}
					{children}
				</DialogPrimitive.Content>
			</DialogPrimitive.Portal>
		</DialogPrimitive.Root>
	);
}

export const DialogClose = DialogPrimitive.Close;

/**
 * A confirmation that says exactly what will happen. The action runs while the dialog stays open,
 * showing progress; a refusal is shown inside it; it closes only when the action succeeded.
 */
export function ConfirmDialog({
	trigger,
	title,
	description,
	confirmLabel,
	destructive = false,
	onConfirm,
}: {
	trigger: ReactNode;
	title: ReactNode;
	description: ReactNode;
	confirmLabel: string;
	destructive?: boolean;
	onConfirm: () => Promise<unknown>;
}) {
	const [open, setOpen] = useState(false);
	const [pending, setPending] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const confirm = async () => {
		setPending(true);
		setError(null);
		try {
			await onConfirm();
			setOpen(false);
		} catch (caught) {
			setError(caught);
		} finally {
			setPending(false);
		}
	};
	return (
		<AlertDialogPrimitive.Root
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (!next) setError(null);
			}}
		>
			<AlertDialogPrimitive.Trigger asChild>{trigger}</AlertDialogPrimitive.Trigger>
			<AlertDialogPrimitive.Portal>
				<AlertDialogPrimitive.Overlay className="dialog-overlay" />
				<AlertDialogPrimitive.Content className="dialog">
					<AlertDialogPrimitive.Title className="dialog-title">{title}</AlertDialogPrimitive.Title>
					<AlertDialogPrimitive.Description asChild>
						<div className="dialog-description">{description}</div>
					</AlertDialogPrimitive.Description>
					<ErrorAlert error={error} />
					<div className="dialog-actions">
						<AlertDialogPrimitive.Cancel asChild>
							<Button variant="secondary">Cancel</Button>
						</AlertDialogPrimitive.Cancel>
						<Button variant={destructive ? "danger" : "primary"} pending={pending} onClick={confirm}>
							{confirmLabel}
						</Button>
					</div>
				</AlertDialogPrimitive.Content>
			</AlertDialogPrimitive.Portal>
		</AlertDialogPrimitive.Root>
	);
}
