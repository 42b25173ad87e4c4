import { c, metadata } from "../common";
import {
	ZArchiveAssistantInput,
	ZAssistantConfig,
	ZCreateAssistantInput,
	ZCreateAssistantVersionInput,
	ZGetAssistantDraftInput,
	ZGetAssistantInput,
	ZGetAssistantVersionInput,
	ZListAssistantProvidersInput,
	ZListAssistantsInput,
	ZListAssistantVersionsInput,
	ZListDeploymentsInput,
	ZPublishAssistantVersionInput,
	ZRestoreAssistantInput,
	ZRollbackAssistantDeploymentInput,
	ZRunPlaygroundInput,
	ZUpdateAssistantDraftInput,
	ZUpdateAssistantInput,
} from "../inputs/assistants";
import { ZErrorEnvelope } from "../schemas/common";
import { PROVIDER_NAMES, ZSseStream } from "../schemas/runtime";
import { z } from "../zod";
import { fromUrlBoolean, fromUrlNumber } from "./from-input";

export const ZAssistant = z
	.object({
		id: z.string(),
		slug: z.string(),
		name: z.string(),
		description: z.string().nullable(),
		/** Archived assistants are served nowhere; restoring serves what was deployed before. */
		archived: z.boolean(),
		archivedAt: z.string().datetime().nullable(),
		createdAt: z.string().datetime(),
		updatedAt: z.string().datetime(),
	})
	.openapi("Assistant");

const ZServedVersion = z.object({ environment: z.string(), version: z.number().int() });

export const ZAssistantListEntry = ZAssistant.extend({ deployments: z.array(ZServedVersion) }).openapi("AssistantListEntry");

export const ZAssistantDetails = ZAssistant.extend({
	latestVersion: z.number().int().nullable(),
	/** What each environment serves right now. */
	deployments: z.array(ZServedVersion.extend({ deployedAt: z.string().datetime(), deployedByUserId: z.string().nullable() })),
}).openapi("AssistantDetails");

export const ZAssistantDraft = z
	.object({ assistantId: z.string(), config: ZAssistantConfig, updatedAt: z.string().datetime(), updatedByUserId: z.string().nullable() })
	.openapi("AssistantDraft");

export const ZAssistantVersion = z
	.object({ id: z.string(), version: z.number().int(), note: z.string().nullable(), createdByUserId: z.string().nullable(), createdAt: z.string().datetime() })
	.openapi("AssistantVersion");

export const ZAssistantVersionWithConfig = ZAssistantVersion.extend({ config: ZAssistantConfig }).openapi("AssistantVersionWithConfig");

export const ZDeploymentHistoryEntry = z
	.object({
		environment: z.string(),
		action: z.enum(["publish", "rollback"]),
		version: z.number().int(),
		previousVersion: z.number().int().nullable(),
		actorUserId: z.string().nullable(),
		at: z.string().datetime(),
	})
	.openapi("DeploymentHistoryEntry");

export const ZDeploymentChange = z
	.object({ assistantId: z.string(), environment: z.string(), version: z.number().int(), previousVersion: z.number().int().nullable() })
	.openapi("DeploymentChange");

export const ZAssistantProvider = z.object({ provider: z.enum(PROVIDER_NAMES), configured: z.boolean() }).openapi("AssistantProvider");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const generationErrors = { ...errors, 409: ZErrorEnvelope, 429: ZErrorEnvelope, 502: ZErrorEnvelope, 503: ZErrorEnvelope, 504: ZErrorEnvelope };

const workspacePath = ZListAssistantsInput.pick({ workspaceId: true });
const assistantPath = ZGetAssistantInput.pick({ workspaceId: true, slug: true });
const tags = ["Assistants"];
const BASE = "/management/workspaces/:workspaceId/assistants";

/**
 * Assistants in the dashboard: the list, the draft editor, versions, deployments and the
 * playground. Every route calls the use case the MCP tool of the same purpose calls, with the
 * input schema both take from contract/inputs/assistants.ts.
 */
export const assistantsContract = c.router({
	listAssistants: {
		method: "GET",
		path: BASE,
		summary: "The workspace's assistants by slug, with the version each environment serves; archived ones with includeArchived=true",
		pathParams: workspacePath,
		query: z.object({ includeArchived: fromUrlBoolean(ZListAssistantsInput.shape.includeArchived) }),
		responses: { 200: z.object({ data: z.array(ZAssistantListEntry) }), ...errors },
		metadata: metadata({ operationId: "listAssistants", tags, session: "required" }),
	},
	createAssistant: {
		method: "POST",
		path: BASE,
		summary: "A new assistant with a default draft",
		pathParams: workspacePath,
		body: ZCreateAssistantInput.omit({ workspaceId: true }),
		responses: { 201: z.object({ id: z.string(), slug: z.string(), name: z.string() }), ...errors },
		metadata: metadata({ operationId: "createAssistant", tags, session: "required" }),
	},
	getAssistant: {
		method: "GET",
		path: `${BASE}/:slug`,
		summary: "One assistant: its latest version number and what each environment serves",
		pathParams: assistantPath,
		responses: { 200: ZAssistantDetails, ...errors },
		metadata: metadata({ operationId: "getAssistant", tags, session: "required" }),
	},
	updateAssistant: {
		method: "PATCH",
		path: `${BASE}/:slug`,
		summary: "Renames an assistant or changes its description (the slug never changes)",
		pathParams: assistantPath,
		body: ZUpdateAssistantInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: ZAssistant, ...errors },
		metadata: metadata({ operationId: "updateAssistant", tags, session: "required" }),
	},
	archiveAssistant: {
		method: "POST",
		path: `${BASE}/:slug/archive`,
		summary: "Stops serving the assistant in every environment; versions and deployments are kept",
		pathParams: ZArchiveAssistantInput.pick({ workspaceId: true, slug: true }),
		body: c.noBody(),
		responses: { 200: ZAssistant, ...errors },
		metadata: metadata({ operationId: "archiveAssistant", tags, session: "required" }),
	},
	restoreAssistant: {
		method: "POST",
		path: `${BASE}/:slug/restore`,
		summary: "Serves an archived assistant again, with the versions deployed when it was archived",
		pathParams: ZRestoreAssistantInput.pick({ workspaceId: true, slug: true }),
		body: c.noBody(),
		responses: { 200: ZAssistant, ...errors },
		metadata: metadata({ operationId: "restoreAssistant", tags, session: "required" }),
	},
	getAssistantDraft: {
		method: "GET",
		path: `${BASE}/:slug/draft`,
		summary: "The editable configuration the next version freezes",
		pathParams: ZGetAssistantDraftInput.pick({ workspaceId: true, slug: true }),
		responses: { 200: ZAssistantDraft, ...errors },
		metadata: metadata({ operationId: "getAssistantDraft", tags, session: "required" }),
	},
	updateAssistantDraft: {
		method: "PATCH",
		path: `${BASE}/:slug/draft`,
		summary: "Replaces fields of the draft (whole values); the result must be a valid configuration. Nothing is served until a version is published",
		pathParams: assistantPath,
		body: ZUpdateAssistantDraftInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: z.object({ assistantId: z.string(), config: ZAssistantConfig }), ...errors },
		metadata: metadata({ operationId: "updateAssistantDraft", tags, session: "required" }),
	},
	listAssistantVersions: {
		method: "GET",
		path: `${BASE}/:slug/versions`,
		summary: "An assistant's frozen versions, newest first",
		pathParams: assistantPath,
		query: z.object({ limit: fromUrlNumber(ZListAssistantVersionsInput.shape.limit) }),
		responses: { 200: z.object({ data: z.array(ZAssistantVersion) }), ...errors },
		metadata: metadata({ operationId: "listAssistantVersions", tags, session: "required" }),
	},
	createAssistantVersion: {
		method: "POST",
		path: `${BASE}/:slug/versions`,
		summary: "Freezes the saved draft as the next version number",
		pathParams: assistantPath,
		body: ZCreateAssistantVersionInput.omit({ workspaceId: true, slug: true }),
		responses: { 201: z.object({ id: z.string(), version: z.number().int(), config: ZAssistantConfig }), ...errors },
		metadata: metadata({ operationId: "createAssistantVersion", tags, session: "required" }),
	},
	getAssistantVersion: {
		method: "GET",
		path: `${BASE}/:slug/versions/:version`,
		summary: "One frozen version with its full configuration",
		pathParams: assistantPath.extend({ version: fromUrlNumber(ZGetAssistantVersionInput.shape.version) }),
		responses: { 200: ZAssistantVersionWithConfig, ...errors },
		metadata: metadata({ operationId: "getAssistantVersion", tags, session: "required" }),
	},
	listDeployments: {
		method: "GET",
		path: `${BASE}/:slug/deployments`,
		summary: "Every publish and rollback of an assistant, newest first, optionally in one environment",
		pathParams: assistantPath,
		query: z.object({ environment: ZListDeploymentsInput.shape.environment, limit: fromUrlNumber(ZListDeploymentsInput.shape.limit) }),
		responses: { 200: z.object({ data: z.array(ZDeploymentHistoryEntry) }), ...errors },
		metadata: metadata({ operationId: "listDeployments", tags, session: "required" }),
	},
	publishAssistantVersion: {
		method: "POST",
		path: `${BASE}/:slug/publish`,
		summary: "Serves a version in an environment (default production) from the very next call, on every instance",
		pathParams: assistantPath,
		body: ZPublishAssistantVersionInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: ZDeploymentChange, ...errors },
		metadata: metadata({ operationId: "publishAssistantVersion", tags, session: "required" }),
	},
	rollbackAssistantDeployment: {
		method: "POST",
		path: `${BASE}/:slug/rollback`,
		summary: "Serves again the version the latest publish or rollback in the environment (default production) replaced",
		pathParams: assistantPath,
		body: ZRollbackAssistantDeploymentInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: ZDeploymentChange, ...errors },
		metadata: metadata({ operationId: "rollbackAssistantDeployment", tags, session: "required" }),
	},
	streamPlayground: {
		method: "POST",
		path: `${BASE}/:slug/playground`,
		summary: "Runs one turn against the saved draft (default) or a version, streamed as Server-Sent Events (as the runtime streams); `done` names the trace",
		pathParams: assistantPath,
		body: ZRunPlaygroundInput.omit({ workspaceId: true, slug: true }),
		responses: { 200: c.otherResponse({ contentType: "text/event-stream", body: ZSseStream }), ...generationErrors },
		metadata: metadata({ operationId: "streamPlayground", tags, session: "required" }),
	},
	listAssistantProviders: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/assistant-providers",
		summary: "Every provider an assistant can name, and whether the workspace holds a credential for it",
		pathParams: ZListAssistantProvidersInput.pick({ workspaceId: true }),
		responses: { 200: z.object({ data: z.array(ZAssistantProvider) }), ...errors },
		metadata: metadata({ operationId: "listAssistantProviders", tags, session: "required" }),
	},
});

export { ZAssistantConfig };
export type TAssistantConfig = z.output<typeof ZAssistantConfig>;
