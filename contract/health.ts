import { c, metadata } from "./common";
import { ZErrorEnvelope } from "./schemas/common";
import { z } from "./zod";

export const ZHealth = z
	.object({ status: z.literal("ok"), database: z.literal("ok") })
	.openapi("Health", { example: { status: "ok", database: "ok" } });

export const ZReadiness = z
	.object({ status: z.literal("ready"), database: z.literal("ok"), migrations: z.literal("ok") })
	.openapi("Readiness", { example: { status: "ready", database: "ok", migrations: "ok" } });

export const healthContract = c.router({
	getHealth: {
		method: "GET",
		path: "/healthz",
		summary: "Liveness and database readiness",
		description: "No authentication. 200 when the server runs and its database answers; otherwise 503 INTERNAL_ERROR (\"Database unavailable\"). 400 INVALID_REQUEST, as on every path, for a request the HTTP parser cannot read.",
		// 400: like every path, a request the HTTP parser cannot read (README, "What Node refuses itself").
		responses: { 200: ZHealth, 400: ZErrorEnvelope, 503: ZErrorEnvelope },
		metadata: metadata({ operationId: "getHealth", tags: ["Health"] }),
	},
	getReadiness: {
		method: "GET",
		path: "/readyz",
		summary: "Readiness: whether this instance should receive traffic",
		description:
			"No authentication. 200 when the database answers, every migration this build knows is applied, and the server is not shutting down; otherwise 503 INTERNAL_ERROR whose message names the reason (\"Database unavailable\", \"Migrations not applied: …\", \"Draining: the server is shutting down\"). For a load balancer's or Kubernetes' readiness probe; /healthz is the liveness probe.",
		responses: { 200: ZReadiness, 400: ZErrorEnvelope, 503: ZErrorEnvelope },
		metadata: metadata({ operationId: "getReadiness", tags: ["Health"] }),
	},
});
