/** A progress indicator; its label is read out where it stands alone. */
export function Spinner({ size = "medium", label }: { size?: "small" | "medium"; label?: string }) {
	return (
		<span className={`spinner spinner-${size}`} role={label ? "status" : undefined} aria-label={label} aria-hidden={label ? undefined : true} />
	);
}

export function LoadingState({ label = "Loading" }: { label?: string }) {
	return (
		<div className="loading-state">
			<Spinner label={label} />
			<span aria-hidden="true">{label}…</span>
		</div>
	);
}
