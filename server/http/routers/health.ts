import { initServer } from "@ts-rest/express";
import { healthContract } from "../../../contract/health";
import type { HttpDependencies } from "../context";

export function createHealthRouter({ orm }: HttpDependencies) {
	return initServer().router(healthContract, {
		getHealth: async () => {
			try {
				await orm.em.getConnection().execute("select 1");
				return { status: 200, body: { status: "ok", database: "ok" } };
			} catch {
				return { status: 503, body: { code: "SERVICE_UNAVAILABLE", status: 503, message: "Database unavailable" } };
			}
		},
	});
}
