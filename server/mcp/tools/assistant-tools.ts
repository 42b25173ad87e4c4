import type { TGenerationResult } from "../../../contract/schemas/runtime";
import { z } from "zod";
import {
	ZArchiveAssistantInput,
	ZCreateAssistantInput,
	ZCreateAssistantVersionInput,
	ZGetAssistantDraftInput,
	ZGetAssistantInput,
	ZGetAssistantVersionInput,
	ZListAssistantsInput,
	ZListAssistantVersionsInput,
	ZListDeploymentsInput,
	ZPublishAssistantVersionInput,
	ZRestoreAssistantInput,
	ZRollbackAssistantDeploymentInput,
	ZRunPlaygroundInput,
	ZUpdateAssistantDraftInput,
	ZUpdateAssistantInput,
} from "../../../contract/inputs/assistants";
import { ZCreateEnvironmentInput, ZDeleteEnvironmentInput, ZListEnvironmentsInput, ZUpdateEnvironmentInput } from "../../../contract/inputs/environments";
import { createAssistant } from "../../modules/assistants/create-assistant";
import { createAssistantVersion } from "../../modules/assistants/create-assistant-version";
import { executeAssistant } from "../../modules/assistants/execute-assistant";
import { getAssistant } from "../../modules/assistants/get-assistant";
import { getAssistantDraft } from "../../modules/assistants/get-assistant-draft";
import { getAssistantVersion } from "../../modules/assistants/get-assistant-version";
import { listAssistantVersions } from "../../modules/assistants/list-assistant-versions";
import { listAssistants } from "../../modules/assistants/list-assistants";
import { listDeployments } from "../../modules/assistants/list-deployments";
import { publishAssistantVersion } from "../../modules/assistants/publish-assistant-version";
import { rollbackAssistantDeployment } from "../../modules/assistants/rollback-assistant-deployment";
import { runPlayground } from "../../modules/assistants/run-playground";
import { archiveAssistant, restoreAssistant } from "../../modules/assistants/set-assistant-archived";
import { updateAssistant } from "../../modules/assistants/update-assistant";
import { updateAssistantDraft } from "../../modules/assistants/update-assistant-draft";
import { createEnvironment } from "../../modules/environments/create-environment";
import { deleteEnvironment } from "../../modules/environments/delete-environment";
import { listEnvironments } from "../../modules/environments/list-environments";
import { updateEnvironment } from "../../modules/environments/update-environment";
import type { AssistantConfig } from "../../db/entities";
import { DESTRUCTIVE, DESTRUCTIVE_NOT_IDEMPOTENT, defineTool, GENERATES, type McpTool, READ_ONLY, WRITES } from "../tool-definition";
import { assistantSlug, environmentSlug, jsonObject, nullable, timestamp, variables, workspaceId } from "./fields";

const assistant = z.object({
	id: z.string(),
	slug: z.string(),
	name: z.string(),
	description: nullable(z.string()),
	archived: z.boolean().describe("Archived assistants are not served by the runtime"),
	archivedAt: nullable(timestamp()),
	createdAt: timestamp(),
	updatedAt: timestamp(),
});
const version = z.object({ id: z.string(), version: z.number().int(), note: nullable(z.string()), createdByUserId: nullable(z.string()), createdAt: timestamp() });
const environment = z.object({ id: z.string(), slug: z.string(), name: z.string(), description: nullable(z.string()), createdAt: timestamp(), updatedAt: timestamp() });
const config = jsonObject().describe("provider, model, systemPrompt (with {{variable}} placeholders), variables, generation settings, attached knowledge");
const deploymentChange = {
	assistantId: z.string(),
	environment: z.string().describe("The environment changed"),
	version: z.number().int().describe("The version it serves now"),
	previousVersion: z.number().int().nullable().describe("The version it served before; null on a first publish"),
};
const generation = {
	message: z.object({ role: z.literal("assistant"), content: z.string() }).describe("The generated answer"),
	finishReason: z.string().describe("stop, length, tool_calls, content_filter or error"),
	usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }).describe("Token accounting"),
	traceId: z.string().describe("The trace recording this generation: get_trace reads it"),
	toolCalls: z
		.array(
			z.object({
				id: z.string(),
				name: z.string().describe("The tool called"),
				arguments: z.string().describe("The arguments the model wrote, as JSON text (secrets redacted)"),
				ok: z.boolean().describe("Whether the tool answered; a failure went back to the model as an error result"),
				error: z.string().optional(),
				latencyMs: z.number(),
			}),
		)
		.optional()
		.describe("With the assistant's tools: each tool call the server ran, in order"),
};

type ToolCallOutcome = NonNullable<TGenerationResult["toolCalls"]>[number];

/** Tool-call arguments as JSON text: MCP output schemas cannot say "any JSON value" portably. */
function presentGeneration<T extends { toolCalls?: ToolCallOutcome[] }>(result: T): Omit<T, "toolCalls"> & { toolCalls?: (Omit<ToolCallOutcome, "arguments"> & { arguments: string })[] } {
	const { toolCalls, ...rest } = result;
	if (!toolCalls) return rest;
	return { ...rest, toolCalls: toolCalls.map((call) => ({ ...call, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}) })) };
}

const asConfig = (value: AssistantConfig) => value as unknown as Record<string, unknown>;

export const ASSISTANT_TOOLS: McpTool[] = [
	defineTool({
		name: "list_assistants",
		title: "List assistants",
		description: "Lists the workspace's assistants by slug (archived ones only with includeArchived).",
		inputSchema: ZListAssistantsInput.shape,
		outputSchema: {
			assistants: z.array(assistant.extend({ deployments: z.array(z.object({ environment: z.string(), version: z.number().int() })).describe("What each environment serves now") })),
		},
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => ({ assistants: await listAssistants(context, input) }),
	}),
	defineTool({
		name: "get_assistant",
		title: "Get an assistant",
		description: "One assistant: name, description, archived or not, its latest version number and the version each environment serves.",
		inputSchema: ZGetAssistantInput.shape,
		outputSchema: {
			...assistant.shape,
			latestVersion: z.number().int().nullable().describe("Highest version number; null before the first version"),
			deployments: z.array(z.object({ environment: z.string(), version: z.number().int(), deployedAt: timestamp(), deployedByUserId: nullable(z.string()) })).describe("What each environment serves now"),
		},
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: (context, input) => getAssistant(context, input),
	}),
	defineTool({
		name: "get_assistant_draft",
		title: "Get an assistant's draft",
		description: "The editable working copy of an assistant's configuration: what create_assistant_version freezes next.",
		inputSchema: ZGetAssistantDraftInput.shape,
		outputSchema: { assistantId: z.string(), config, updatedAt: timestamp(), updatedByUserId: nullable(z.string()) },
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => {
			const draft = await getAssistantDraft(context, input);
			return { ...draft, config: asConfig(draft.config) };
		},
	}),
	defineTool({
		name: "list_assistant_versions",
		title: "List versions",
		description: "An assistant's frozen versions, newest first.",
		inputSchema: ZListAssistantVersionsInput.shape,
		outputSchema: { versions: z.array(version) },
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => ({ versions: await listAssistantVersions(context, input) }),
	}),
	defineTool({
		name: "get_assistant_version",
		title: "Get a version",
		description: "One frozen version with its full configuration.",
		inputSchema: ZGetAssistantVersionInput.shape,
		outputSchema: { ...version.shape, config },
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => {
			const found = await getAssistantVersion(context, input);
			return { ...found, config: asConfig(found.config) };
		},
	}),
	defineTool({
		name: "list_deployments",
		title: "Deployment history",
		description: "Every publish and rollback of an assistant, newest first, optionally in one environment: which version replaced which, who did it and when.",
		inputSchema: ZListDeploymentsInput.shape,
		outputSchema: {
			deployments: z.array(
				z.object({
					environment: z.string(),
					action: z.enum(["publish", "rollback"]),
					version: z.number().int(),
					previousVersion: z.number().int().nullable(),
					actorUserId: nullable(z.string()),
					at: timestamp(),
				}),
			),
		},
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => ({ deployments: await listDeployments(context, input) }),
	}),
	defineTool({
		name: "list_environments",
		title: "List environments",
		description: "The workspace's deployment environments; production always exists and is the runtime's default.",
		inputSchema: ZListEnvironmentsInput.shape,
		outputSchema: { environments: z.array(environment) },
		annotations: READ_ONLY,
		permission: "assistants:read",
		run: async (context, input) => ({ environments: await listEnvironments(context, input) }),
	}),
	defineTool({
		name: "create_assistant",
		title: "Create an assistant",
		description: "Creates an assistant with a default draft. Then: update_assistant_draft, create_assistant_version, publish_deployment.",
		inputSchema: ZCreateAssistantInput.shape,
		outputSchema: { id: z.string(), slug: z.string(), name: z.string() },
		annotations: WRITES,
		permission: "assistants:write",
		run: (context, input) => createAssistant(context, input),
	}),
	defineTool({
		name: "update_assistant",
		title: "Rename an assistant",
		description: "Changes an assistant's name or description (the slug never changes; configuration is edited with update_assistant_draft).",
		inputSchema: ZUpdateAssistantInput.shape,
		outputSchema: assistant.shape,
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: (context, input) => updateAssistant(context, input),
	}),
	defineTool({
		name: "archive_assistant",
		title: "Archive an assistant",
		description: "Stops the runtime serving the assistant in every environment (callers get DEPLOYMENT_NOT_FOUND); versions and deployments are kept for restore_assistant.",
		inputSchema: ZArchiveAssistantInput.shape,
		outputSchema: assistant.shape,
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: (context, input) => archiveAssistant(context, input),
	}),
	defineTool({
		name: "restore_assistant",
		title: "Restore an assistant",
		description: "Serves an archived assistant again, with the versions deployed when it was archived.",
		inputSchema: ZRestoreAssistantInput.shape,
		outputSchema: assistant.shape,
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: (context, input) => restoreAssistant(context, input),
	}),
	defineTool({
		name: "update_assistant_draft",
		title: "Edit the draft",
		description: "Replaces fields of the assistant's draft configuration; the result must be a valid configuration. Nothing is served until a version is created and published.",
		inputSchema: ZUpdateAssistantDraftInput.shape,
		outputSchema: { assistantId: z.string(), config },
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: async (context, input) => {
			const updated = await updateAssistantDraft(context, input);
			return { ...updated, config: asConfig(updated.config) };
		},
	}),
	defineTool({
		name: "create_assistant_version",
		title: "Freeze a version",
		description: "Freezes the current draft as the next version number (versions never change afterwards).",
		inputSchema: ZCreateAssistantVersionInput.shape,
		outputSchema: { id: z.string(), version: z.number().int().describe("The new version number"), config },
		annotations: WRITES,
		permission: "assistants:write",
		run: async (context, input) => {
			const created = await createAssistantVersion(context, input);
			return { ...created, config: asConfig(created.config) };
		},
	}),
	defineTool({
		name: "publish_deployment",
		title: "Publish a version",
		description: "Deploys a version to an environment (default production): the runtime serves it on the very next call, on every server instance.",
		inputSchema: ZPublishAssistantVersionInput.shape,
		outputSchema: deploymentChange,
		annotations: DESTRUCTIVE_NOT_IDEMPOTENT,
		permission: "assistants:write",
		run: (context, input) => publishAssistantVersion(context, input),
	}),
	defineTool({
		name: "rollback_deployment",
		title: "Roll back",
		description: "Serves again the version that the latest publish or rollback in the environment (default production) replaced.",
		inputSchema: ZRollbackAssistantDeploymentInput.shape,
		outputSchema: deploymentChange,
		annotations: DESTRUCTIVE_NOT_IDEMPOTENT,
		permission: "assistants:write",
		run: (context, input) => rollbackAssistantDeployment(context, input),
	}),
	defineTool({
		name: "create_environment",
		title: "Create an environment",
		description: "Adds a deployment environment (e.g. staging) that assistants can be published to and run in.",
		inputSchema: ZCreateEnvironmentInput.shape,
		outputSchema: environment.shape,
		annotations: WRITES,
		permission: "assistants:write",
		run: (context, input) => createEnvironment(context, input),
	}),
	defineTool({
		name: "update_environment",
		title: "Rename an environment",
		description: "Changes an environment's name or description (its slug never changes).",
		inputSchema: ZUpdateEnvironmentInput.shape,
		outputSchema: environment.shape,
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: (context, input) => updateEnvironment(context, input),
	}),
	defineTool({
		name: "delete_environment",
		title: "Delete an environment",
		description: "Deletes an environment and its deployment history. Refused for production and while it serves any assistant that is not archived.",
		inputSchema: ZDeleteEnvironmentInput.shape,
		outputSchema: { slug: z.string(), deleted: z.literal(true) },
		annotations: DESTRUCTIVE,
		permission: "assistants:write",
		run: (context, input) => deleteEnvironment(context, input),
	}),
	defineTool({
		name: "execute_assistant",
		title: "Run a deployed assistant",
		description:
			"Runs the version deployed to an environment (default production) on one input, exactly as POST /runtime/assistants/<slug> does; traced with you as the caller and counted against the workspace's spend quota.",
		inputSchema: {
			workspaceId,
			slug: assistantSlug,
			input: z.string().max(1_000_000).describe("The user's turn"),
			variables,
			environment: environmentSlug.optional().describe("Environment to run in; default production"),
		},
		outputSchema: {
			...generation,
			assistant: z
				.object({ slug: z.string(), version: z.number().int(), environment: z.string() })
				.describe("Which published version answered, in which environment (as POST /runtime/assistants/<slug> answers)"),
			version: z.number().int().describe("The deployed version that answered (as assistant.version)"),
		},
		annotations: GENERATES,
		permission: "generations:run",
		run: async (context, input) =>
			presentGeneration(await executeAssistant(context, { workspaceId: input.workspaceId, slug: input.slug, run: { input: input.input, variables: input.variables, environment: input.environment } })),
	}),
	defineTool({
		name: "run_playground",
		title: "Try a draft or version",
		description:
			"Runs one turn against the assistant's current draft (default) or a pinned version, without deploying anything; traced as a playground run and counted against the workspace's spend quota.",
		inputSchema: ZRunPlaygroundInput.shape,
		outputSchema: { ...generation, ranOn: z.union([z.literal("draft"), z.number().int()]).describe("'draft' or the version number that answered") },
		annotations: GENERATES,
		permission: "generations:run",
		run: async (context, input) => presentGeneration(await runPlayground(context, input)),
	}),
];
