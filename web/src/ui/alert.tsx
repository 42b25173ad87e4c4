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
