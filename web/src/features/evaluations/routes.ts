import { createRoute, lazyRouteComponent } from "@tanstack/react-router";
import type { workspaceRoute } from "../../app/router";

export interface CompareRunsSearch {
	baseline?: string;
	candidate?: string;
}

const runId = (value: unknown) => (typeof value === "string" && /^[a-z]+_[0-9A-Za-z]{1,64}$/.test(value) ? value : undefined);

/**
 * The evaluation pages under /workspaces/$workspaceId/evaluations: datasets, a dataset with its
 * cases and runs, a run, and two runs compared. Each page is its own chunk, loaded when visited.
 */
export function evaluationRoutes(parent: typeof workspaceRoute) {
	const list = createRoute({ getParentRoute: () => parent, path: "/evaluations", component: lazyRouteComponent(() => import("./evaluations-page"), "EvaluationsPage") });
	const dataset = createRoute({
		getParentRoute: () => parent,
		path: "/evaluations/datasets/$datasetId",
		component: lazyRouteComponent(() => import("./dataset-page"), "DatasetPage"),
	});
	const run = createRoute({ getParentRoute: () => parent, path: "/evaluations/runs/$runId", component: lazyRouteComponent(() => import("./run-page"), "RunPage") });
	const compare = createRoute({
		getParentRoute: () => parent,
		path: "/evaluations/compare",
		validateSearch: (search: Record<string, unknown>): CompareRunsSearch => ({ baseline: runId(search.baseline), candidate: runId(search.candidate) }),
		component: lazyRouteComponent(() => import("./compare-runs-page"), "CompareRunsPage"),
	});
	return [list, dataset, run, compare] as const;
}
