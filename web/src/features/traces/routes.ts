import { createRoute, lazyRouteComponent } from "@tanstack/react-router";
import type { workspaceRoute } from "../../app/router";
import { traceSearch } from "./trace-queries";

/** Traces and usage under /workspaces/$workspaceId, each page its own chunk (the charts' library only with the usage page). */
export function traceRoutes(parent: typeof workspaceRoute) {
	const list = createRoute({
		getParentRoute: () => parent,
		path: "/traces",
		validateSearch: traceSearch,
		component: lazyRouteComponent(() => import("./traces-page"), "TracesPage"),
	});
	const trace = createRoute({ getParentRoute: () => parent, path: "/traces/$traceId", component: lazyRouteComponent(() => import("./trace-page"), "TracePage") });
	const usage = createRoute({
		getParentRoute: () => parent,
		path: "/usage",
		validateSearch: (search: Record<string, unknown>): { days?: number } => ({ days: [1, 7, 30, 90].find((days) => String(days) === String(search.days)) }),
		component: lazyRouteComponent(() => import("./usage-page"), "UsagePage"),
	});
	return [list, trace, usage] as const;
}
