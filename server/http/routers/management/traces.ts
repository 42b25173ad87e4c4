import { tracesContract } from "../../../../contract/management/traces";
import { getTrace } from "../../../modules/traces/get-trace";
import { getUsage } from "../../../modules/traces/get-usage";
import { listTraces } from "../../../modules/traces/list-traces";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** Traces, over the use cases of the MCP tools list_traces and get_trace; usage over the same table. */
export function traceRoutes(): RouteDefinition[] {
	const t = tracesContract;
	return [
		contractRoute(t.listTraces, async ({ context, params, query }) => ({ status: 200, body: await listTraces(context, { ...params, ...query }) })),
		contractRoute(t.getUsage, async ({ context, params, query }) => ({ status: 200, body: await getUsage(context, { ...params, ...query }) })),
		contractRoute(t.getTrace, async ({ context, params }) => ({ status: 200, body: await getTrace(context, params) })),
	];
}
