import type { Role } from "./workspace-context";

export interface NavigationItem {
	label: string;
	/** Under /workspaces/$workspaceId (workspace), /organizations/$organizationId (organization), or absolute (account). */
	path: string;
	scope: "workspace" | "organization" | "account";
	/** Hidden below this role: nothing a role cannot use is offered. */
	minimumRole?: Role;
}

export interface NavigationGroup {
	title: string;
	items: NavigationItem[];
}

/** The sidebar, by area; each area's pages live in web/src/features/<area>/. */
export const NAVIGATION: NavigationGroup[] = [
	{
		title: "Build",
		items: [
			{ label: "Home", path: "", scope: "workspace" },
			{ label: "Assistants", path: "assistants", scope: "workspace" },
			{ label: "Environments", path: "environments", scope: "workspace" },
			{ label: "Knowledge", path: "knowledge", scope: "workspace" },
		],
	},
	{
		title: "Observe",
		items: [
			{ label: "Traces", path: "traces", scope: "workspace" },
			{ label: "Usage", path: "usage", scope: "workspace" },
		],
	},
	{
		title: "Evaluate",
		items: [{ label: "Evaluations", path: "evaluations", scope: "workspace" }],
	},
	{
		title: "Workspace settings",
		items: [
			{ label: "API keys", path: "api-keys", scope: "workspace", minimumRole: "admin" },
			{ label: "Provider credentials", path: "provider-credentials", scope: "workspace", minimumRole: "admin" },
		],
	},
	{
		title: "Organization",
		items: [
			{ label: "Members", path: "members", scope: "organization", minimumRole: "admin" },
			{ label: "Organization settings", path: "settings", scope: "organization", minimumRole: "admin" },
		],
	},
	{
		title: "Account",
		items: [{ label: "Connected applications", path: "/account/connections", scope: "account" }],
	},
];
