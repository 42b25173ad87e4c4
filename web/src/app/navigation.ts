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
		items: [{ label: "Home", path: "", scope: "workspace" }],
	},
	{
		title: "Workspace settings",
		items: [],
	},
	{
		title: "Organization",
		items: [],
	},
	{
		title: "Account",
		items: [{ label: "Connected applications", path: "/account/connections", scope: "account" }],
	},
];
