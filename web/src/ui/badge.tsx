import type { ReactNode } from "react";

/** A short label; its meaning is in its words, the colour only repeats it. */
export function Badge({ tone = "neutral", children }: { tone?: "neutral" | "success" | "warning" | "danger" | "info"; children: ReactNode }) {
	return <span className={`badge badge-${tone}`}>{children}</span>;
}
