import { AppError } from "../../shared/app-error";
import type { UserPrincipal } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";

/**
 * The MCP control plane's rate limit: `requests` JSON-RPC requests of a user's connection count
 * against the connection's budget (MCP_RATE_LIMIT_PER_MINUTE), then the user's over all their
 * connections (MCP_USER_RATE_LIMIT_PER_MINUTE), in fixed one-minute windows counted where API
 * keys' are (RequestQuotas.countRequests), so they hold across instances. Refused with
 * RATE_LIMITED and Retry-After, the seconds until the window ends; a request the connection's
 * budget refuses is not counted against the user's, so one runaway client does not lock out the
 * user's others.
 */
export async function consumeMcpRequestQuota(context: UseCaseContext, principal: UserPrincipal, requests: number): Promise<void> {
	const { mcpConnectionRequestsPerMinute, mcpUserRequestsPerMinute } = context.services.settings.quotas;
	const budgets = [
		{ subject: `mcp-connection:${principal.connectionId}`, limit: mcpConnectionRequestsPerMinute, holder: "This connection is" },
		{ subject: `mcp-user:${principal.userId}`, limit: mcpUserRequestsPerMinute, holder: "Your connections together are" },
	];
	for (const { subject, limit, holder } of budgets) {
		if (limit <= 0) continue;
		const { total, retryAfterSeconds } = await context.services.quotas.countRequests(context.em, subject, requests);
		if (total > limit) {
			context.services.observability.metrics.recordRefusal("mcp_rate_limit");
			throw new AppError("RATE_LIMITED", `${holder} limited to ${limit} MCP requests per minute; retry in ${retryAfterSeconds} s`, {
				headers: { "Retry-After": String(retryAfterSeconds) },
			});
		}
	}
}
