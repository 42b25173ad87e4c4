import { c, metadata } from "./common";
import { ZErrorEnvelope } from "./schemas/common";
import { z } from "./zod";

export const ZHealth = z
	.object({ status: z.literal("ok"), database: z.literal("ok") })
	.openapi("Health", { example: { status: "ok", database: "ok" } });

export const healthContract = c.router({
	getHealth: {
		method: "GET",
		path: "/healthz",
		summary: "Liveness and database readiness",
		description: "No authentication. 200 when the server runs and its database answers; 503 otherwise.",
		responses: { 200: ZHealth, 503: ZErrorEnvelope },
		metadata: metadata({ operationId: "getHealth", tags: ["Health"] }),
	},
});
