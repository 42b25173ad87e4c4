import { createRoute, lazyRouteComponent } from "@tanstack/react-router";
import type { workspaceRoute } from "../../app/router";

export interface CompareSearch {
	from?: string;
	to?: string;
}

/** `?from=1&to=draft`: version numbers or `draft`; anything else is ignored. */
function compareSearch(search: Record<string, unknown>): CompareSearch {
	const side = (value: unknown) => (typeof value === "number" ? String(value) : typeof value === "string" && /^(draft|[1-9]\d{0,8})$/.test(value) ? value : undefined);
	return { from: side(search.from), to: side(search.to) };
}

/**
 * The assistant pages under /workspaces/$workspaceId: the list, and per assistant the editor with
 * its playground, versions, comparison and deployments; environments. Each page is its own chunk,
 * loaded when first visited (or hovered), so the first page of the dashboard carries none of them.
 */
export function assistantRoutes(parent: typeof workspaceRoute) {
	const list = createRoute({ getParentRoute: () => parent, path: "/assistants", component: lazyRouteComponent(() => import("./assistants-page"), "AssistantsPage") });
	const assistant = createRoute({ getParentRoute: () => parent, path: "/assistants/$slug", component: lazyRouteComponent(() => import("./assistant-layout"), "AssistantLayout") });
	const editor = createRoute({
		getParentRoute: () => assistant,
		path: "/",
		// ?input=…: the playground starts with it (a trace's "open in playground").
		validateSearch: (search: Record<string, unknown>): { input?: string } => ({ input: typeof search.input === "string" ? search.input.slice(0, 100_000) : undefined }),
		component: lazyRouteComponent(() => import("./editor-page"), "EditorPage"),
	});
	const versions = createRoute({ getParentRoute: () => assistant, path: "/versions", component: lazyRouteComponent(() => import("./versions-page"), "VersionsPage") });
	const compare = createRoute({
		getParentRoute: () => assistant,
		path: "/compare",
		validateSearch: compareSearch,
		component: lazyRouteComponent(() => import("./compare-page"), "ComparePage"),
	});
	const deployments = createRoute({ getParentRoute: () => assistant, path: "/deployments", component: lazyRouteComponent(() => import("./deployments-page"), "DeploymentsPage") });
	const environments = createRoute({
		getParentRoute: () => parent,
		path: "/environments",
		component: lazyRouteComponent(() => import("../environments/environments-page"), "EnvironmentsPage"),
	});
	return [list, assistant.addChildren([editor, versions, compare, deployments]), environments] as const;
}
