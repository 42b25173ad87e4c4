import type { ReactNode } from "react";
import { ApiError } from "../api/management-client";

/** A message block: errors interrupt (role=alert), notices wait their turn (role=status). */
export function Alert({ tone = "error", title, children }: { tone?: "error" | "warning" | "success" | "info"; title?: ReactNode; children?: ReactNode }) {
	return (
		<div className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
			{title ? <p className="alert-title">{title}</p> : null}
			{children}
		</div>
	);
}

/** What went wrong, in the server's words (the envelope's message), with the request id when there is one. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
	if (!error) return null;
	const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
	return <Alert title={title}>{<p>{message}</p>}</Alert>;
}

/**
 * A refusal above a form: the envelope's message, and the issues of fields that have no input of
 * their own here (those with one are shown next to it).
 */
export function FormErrorAlert({ error, fieldsShown, title }: { error: unknown; fieldsShown: (field: string) => boolean; title?: string }) {
	if (!error) return null;
	if (!(error instanceof ApiError) || error.fields.length === 0) return <ErrorAlert error={error} title={title} />;
	const elsewhere = error.fields.filter((entry) => !fieldsShown(entry.field));
	return (
		<Alert title={title ?? error.message}>
			{elsewhere.length > 0 ? (
				<ul>
					{elsewhere.map((entry) => (
						<li key={`${entry.field}:${entry.issue}`}>
							<code>{entry.field}</code>: {entry.issue}
						</li>
					))}
				</ul>
			) : (
				<p>The fields that need attention say why.</p>
			)}
		</Alert>
	);
}
