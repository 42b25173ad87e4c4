import { tracesContract } from "../../../../contract/management/traces";
import { getTrace } from "../../../modules/traces/get-trace";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** Traces, over the use case of the MCP tool get_trace. */
export function traceRoutes(): RouteDefinition[] {
	return [contractRoute(tracesContract.getTrace, async ({ context, params }) => ({ status: 200, body: await getTrace(context, params) }))];
}
