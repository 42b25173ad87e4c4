import { type ReactNode, useEffect } from "react";

/** A page's heading (its one h1), what it is for, and its main actions; also sets the document title. */
export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
	useEffect(() => {
		document.title = `${title} · AI Application Platform`;
	}, [title]);
	return (
		<header className="page-header">
			<div>
				<h1>{title}</h1>
				{description ? <p className="page-description">{description}</p> : null}
			</div>
			{actions ? <div className="page-actions">{actions}</div> : null}
		</header>
	);
}

export function Section({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
	return (
		<section className="section" aria-label={title}>
			<div className="section-header">
				<div>
					<h2>{title}</h2>
					{description ? <p className="section-description">{description}</p> : null}
				</div>
				{actions ? <div className="page-actions">{actions}</div> : null}
			</div>
			{children}
		</section>
	);
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
	return (
		<div className="empty-state">
			<p className="empty-state-title">{title}</p>
			{children}
		</div>
	);
}
