import { healthContract } from "../../../contract/health";
import { checkReadiness } from "../../observability/check-readiness";
import { AppError } from "../../shared/app-error";
import { contractRoute, type RouteDefinition } from "../pipeline";

/** GET /healthz: the process answers and its database does. GET /readyz: and it should get traffic. */
export function healthRoutes(): RouteDefinition[] {
	return [
		contractRoute(healthContract.getHealth, async ({ context }) => {
			try {
				await context.services.orm.em.getConnection().execute("select 1");
			} catch (error) {
				throw new AppError("INTERNAL_ERROR", "Database unavailable", { status: 503, cause: error });
			}
			return { status: 200, body: { status: "ok" as const, database: "ok" as const } };
		}),
		contractRoute(healthContract.getReadiness, async ({ context }) => ({ status: 200, body: await checkReadiness(context.services.orm, context.services.observability) })),
	];
}
