import { c, metadata } from "../common";
import { ZCreateEnvironmentInput, ZDeleteEnvironmentInput, ZListEnvironmentsInput, ZUpdateEnvironmentInput } from "../inputs/environments";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

export const ZEnvironment = z
	.object({ id: z.string(), slug: z.string(), name: z.string(), description: z.string().nullable(), createdAt: z.string().datetime(), updatedAt: z.string().datetime() })
	.openapi("Environment");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const tags = ["Environments"];
const BASE = "/management/workspaces/:workspaceId/environments";
const environmentPath = ZUpdateEnvironmentInput.pick({ workspaceId: true }).extend({ environment: ZUpdateEnvironmentInput.shape.slug });

/** Deployment environments (production always exists), over the use cases of the MCP environment tools. */
export const environmentsContract = c.router({
	listEnvironments: {
		method: "GET",
		path: BASE,
		summary: "The workspace's deployment environments; production always exists and is the runtime's default",
		pathParams: ZListEnvironmentsInput.pick({ workspaceId: true }),
		responses: { 200: z.object({ data: z.array(ZEnvironment) }), ...errors },
		metadata: metadata({ operationId: "listEnvironments", tags, session: "required" }),
	},
	createEnvironment: {
		method: "POST",
		path: BASE,
		summary: "Adds a deployment environment (e.g. staging) that assistants can be published to and run in",
		pathParams: ZCreateEnvironmentInput.pick({ workspaceId: true }),
		body: ZCreateEnvironmentInput.omit({ workspaceId: true }),
		responses: { 201: ZEnvironment, ...errors },
		metadata: metadata({ operationId: "createEnvironment", tags, session: "required" }),
	},
	updateEnvironment: {
		method: "PATCH",
		path: `${BASE}/:environment`,
		summary: "Renames an environment or changes its description (its slug never changes)",
		pathParams: environmentPath,
		body: ZUpdateEnvironmentInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: ZEnvironment, ...errors },
		metadata: metadata({ operationId: "updateEnvironment", tags, session: "required" }),
	},
	deleteEnvironment: {
		method: "DELETE",
		path: `${BASE}/:environment`,
		summary: "Deletes an environment and its deployment history; refused for production and while it serves an assistant that is not archived",
		pathParams: ZDeleteEnvironmentInput.pick({ workspaceId: true }).extend({ environment: ZDeleteEnvironmentInput.shape.slug }),
		body: c.noBody(),
		responses: { 200: z.object({ slug: z.string(), deleted: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "deleteEnvironment", tags, session: "required" }),
	},
});
