/** Assistants with their drafts, versions and deployments; environments; running an assistant. */
import { assistantSlugFlag, type CommandSpec, flag, PROVIDER_CHOICES, workspaceFlag } from "./command-spec";

const environmentFlag = (description: string, required = false) =>
	flag("environment", "string", description, { placeholder: "SLUG", required, ...(required ? {} : { default: "production" }) });
const variablesFlag = flag("variables", "json", 'Values for the prompt variables, e.g. {"customer":"Ada"}');
const ASSISTANT_COLUMNS = ["slug", "name", "archived", "updatedAt", "id"] as const;

/** A generation's readable answer: the text, then what produced it. */
function printGeneration(result: Record<string, unknown>, _values: Record<string, unknown>, json: boolean): boolean {
	const message = result.message as { content?: unknown } | undefined;
	if (json || typeof message?.content !== "string") return false;
	const usage = result.usage as { inputTokens?: number; outputTokens?: number } | undefined;
	const ranOn = result.ranOn === "draft" ? "draft" : `version ${String(result.ranOn ?? result.version)}`;
	process.stdout.write(`${message.content}\n`);
	process.stderr.write(`(${ranOn}; finish: ${String(result.finishReason)}; tokens: ${usage?.inputTokens ?? 0} in, ${usage?.outputTokens ?? 0} out)\n`);
	return true;
}

export const ASSISTANT_COMMANDS: CommandSpec[] = [
	{
		path: "assistant list",
		summary: "A workspace's assistants",
		tool: "list_assistants",
		flags: [workspaceFlag, flag("include-archived", "boolean", "Also list archived assistants")],
		table: { list: "assistants", columns: ASSISTANT_COLUMNS, empty: "No assistants." },
	},
	{
		path: "assistant get",
		summary: "One assistant: latest version and what each environment serves",
		tool: "get_assistant",
		flags: [workspaceFlag, assistantSlugFlag],
	},
	{
		path: "assistant create",
		summary: "A new assistant with a default draft",
		details: "Then: assistant draft update, assistant version create, assistant publish.",
		tool: "create_assistant",
		flags: [
			workspaceFlag,
			flag("slug", "string", "A new slug: lowercase letters, digits and dashes (callers use /runtime/assistants/SLUG)", { placeholder: "SLUG", required: true }),
			flag("name", "string", "Display name", { placeholder: "NAME", required: true }),
			flag("description", "string", "What the assistant is for"),
		],
	},
	{
		path: "assistant update",
		summary: "Rename an assistant or change its description (the slug never changes)",
		tool: "update_assistant",
		flags: [
			workspaceFlag,
			assistantSlugFlag,
			flag("name", "string", "New display name", { placeholder: "NAME" }),
			flag("description", "string", "New description ('' clears it)", { emptyIsNull: true }),
		],
	},
	{
		path: "assistant archive",
		summary: "Stop serving an assistant in every environment (versions and deployments are kept)",
		tool: "archive_assistant",
		flags: [workspaceFlag, assistantSlugFlag],
	},
	{
		path: "assistant restore",
		summary: "Serve an archived assistant again, with the versions deployed when it was archived",
		tool: "restore_assistant",
		flags: [workspaceFlag, assistantSlugFlag],
	},
	{
		path: "assistant draft get",
		summary: "The editable configuration that the next version freezes",
		tool: "get_assistant_draft",
		flags: [workspaceFlag, assistantSlugFlag],
	},
	{
		path: "assistant draft update",
		aliases: ["assistant update-draft"],
		summary: "Replace fields of the draft (nothing is served until a version is published)",
		details: "Each flag replaces that field whole; the resulting configuration must be valid. System prompts use {{variable}} placeholders.",
		tool: "update_assistant_draft",
		flags: [
			workspaceFlag,
			assistantSlugFlag,
			flag("provider", "string", "Model provider", { key: "patch.provider", choices: PROVIDER_CHOICES }),
			flag("model", "string", "Model name, e.g. gpt-4.1", { key: "patch.model", placeholder: "MODEL" }),
			flag("system-prompt", "string", "System prompt ({{variable}} placeholders)", { key: "patch.systemPrompt", placeholder: "TEMPLATE" }),
			flag("variables", "json", 'Prompt variables (name, type string|number|boolean, required, default?, description?), e.g. [{"name":"customer","type":"string","required":true}]', { key: "patch.variables" }),
			flag("config", "json", "Generation settings: {temperature?, maxOutputTokens?, responseFormat?, timeoutMs?, maxRetries?, maxToolSteps?}", { key: "patch.generation" }),
			flag("knowledge", "json", 'Attached knowledge sources (sourceId, topK, minScore?), e.g. [{"sourceId":"ks_…","topK":5}]', { key: "patch.knowledge" }),
			flag(
				"tools",
				"json",
				'Tools the model may call, run on the server (knowledge_search, http, mcp), e.g. [{"type":"knowledge_search","name":"search_docs","description":"Searches the docs","sourceIds":["ks_…"]}]; [] removes them',
				{ key: "patch.tools" },
			),
		],
		base: () => ({ patch: {} }),
	},
	{
		path: "assistant version list",
		summary: "An assistant's frozen versions, newest first",
		tool: "list_assistant_versions",
		flags: [workspaceFlag, assistantSlugFlag, flag("limit", "integer", "At most this many", { default: "100" })],
		table: { list: "versions", columns: ["version", "note", "createdAt", "createdByUserId", "id"], empty: "No versions yet: assistant version create freezes the draft." },
	},
	{
		path: "assistant version get",
		summary: "One frozen version with its full configuration",
		tool: "get_assistant_version",
		flags: [workspaceFlag, assistantSlugFlag, flag("version", "integer", "The version number", { required: true })],
	},
	{
		path: "assistant version create",
		aliases: ["assistant create-version"],
		summary: "Freeze the draft as the next version number",
		tool: "create_assistant_version",
		flags: [workspaceFlag, assistantSlugFlag, flag("note", "string", "What changed, for the history")],
	},
	{
		path: "assistant deployment list",
		summary: "Every publish and rollback of an assistant, newest first",
		tool: "list_deployments",
		flags: [workspaceFlag, assistantSlugFlag, flag("environment", "string", "Only this environment", { placeholder: "SLUG" }), flag("limit", "integer", "At most this many", { default: "100" })],
		table: { list: "deployments", columns: ["at", "environment", "action", "version", "previousVersion", "actorUserId"], empty: "Never published." },
	},
	{
		path: "assistant publish",
		summary: "Serve a version in an environment, from the very next call on every instance",
		tool: "publish_deployment",
		flags: [workspaceFlag, assistantSlugFlag, flag("version", "integer", "The version number to serve", { required: true }), environmentFlag("Target environment")],
	},
	{
		path: "assistant rollback",
		summary: "Serve again the version the latest publish or rollback replaced",
		tool: "rollback_deployment",
		flags: [workspaceFlag, assistantSlugFlag, environmentFlag("Environment")],
	},
	{
		path: "assistant execute",
		summary: "Run the version deployed to an environment on one input, as the runtime API does",
		details: "Traced with the operator as the caller and counted against the workspace's spend quota.",
		tool: "execute_assistant",
		flags: [
			workspaceFlag,
			assistantSlugFlag,
			flag("input", "string", "The user's turn", { placeholder: "TEXT", required: true }),
			variablesFlag,
			environmentFlag("Environment to run in"),
		],
		print: printGeneration,
	},
	{
		path: "assistant playground",
		summary: "Run one turn against the draft (or a version) without deploying anything",
		details: "Traced as a playground run and counted against the workspace's spend quota.",
		tool: "run_playground",
		flags: [
			workspaceFlag,
			assistantSlugFlag,
			flag("input", "string", "The user's turn", { placeholder: "TEXT", required: true }),
			variablesFlag,
			flag("version", "integer", "A version number to run instead of the draft"),
		],
		print: printGeneration,
	},
	{
		path: "environment list",
		summary: "A workspace's deployment environments (production always exists)",
		tool: "list_environments",
		flags: [workspaceFlag],
		table: { list: "environments", columns: ["slug", "name", "description", "createdAt", "id"], empty: "No environments." },
	},
	{
		path: "environment create",
		summary: "A new deployment environment, e.g. staging",
		tool: "create_environment",
		flags: [
			workspaceFlag,
			flag("slug", "string", "A new slug: lowercase letters, digits and dashes", { placeholder: "SLUG", required: true }),
			flag("name", "string", "Display name", { placeholder: "NAME", required: true }),
			flag("description", "string", "What the environment is for"),
		],
	},
	{
		path: "environment update",
		summary: "Rename an environment or change its description (the slug never changes)",
		tool: "update_environment",
		flags: [
			workspaceFlag,
			flag("slug", "string", "The environment's slug", { placeholder: "SLUG", required: true }),
			flag("name", "string", "New display name", { placeholder: "NAME" }),
			flag("description", "string", "New description ('' clears it)", { emptyIsNull: true }),
		],
	},
	{
		path: "environment delete",
		summary: "Delete an environment and its deployment history",
		details: "Refused for production and while it serves any assistant that is not archived.",
		tool: "delete_environment",
		flags: [workspaceFlag, flag("slug", "string", "The environment's slug", { placeholder: "SLUG", required: true })],
	},
];
