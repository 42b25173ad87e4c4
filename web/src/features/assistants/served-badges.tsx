import { ApiError } from "../../api/management-client";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";

/** What each environment serves: "production: v3". */
export function ServedBadges({ deployments }: { deployments: { environment: string; version: number }[] }) {
	if (deployments.length === 0) return <span className="muted">Not published</span>;
	return (
		<ul className="token-list">
			{deployments.map((deployment) => (
				<li key={deployment.environment}>
					<Badge tone={deployment.environment === "production" ? "success" : "info"}>
						{deployment.environment}: version {deployment.version}
					</Badge>
				</li>
			))}
		</ul>
	);
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
