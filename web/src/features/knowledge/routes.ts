import { createRoute, lazyRouteComponent } from "@tanstack/react-router";
import type { workspaceRoute } from "../../app/router";

/** Knowledge under /workspaces/$workspaceId: the sources, and one source's documents, uploads and search tester; each its own chunk. */
export function knowledgeRoutes(parent: typeof workspaceRoute) {
	const list = createRoute({ getParentRoute: () => parent, path: "/knowledge", component: lazyRouteComponent(() => import("./sources-page"), "SourcesPage") });
	const source = createRoute({ getParentRoute: () => parent, path: "/knowledge/$sourceId", component: lazyRouteComponent(() => import("./source-page"), "SourcePage") });
	return [list, source] as const;
}
