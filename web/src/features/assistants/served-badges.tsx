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
