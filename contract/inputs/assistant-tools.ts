import { z } from "../zod";

/**
 * The tools a version's configuration offers its model (server/tools runs them). Each kind has a
 * model-facing `name` (unique in the version) and `description`. Schemas here are MCP-portable
 * (server/mcp/tools/fields.ts): fresh instances per use, JSON objects as passthrough objects.
 */

/** What OpenAI and Mistral accept as a function name. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** A workspace secret's name, referenced as `{{secret:NAME}}` in a tool's headers. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** `{{secret:NAME}}` anywhere in a header value. */
export const SECRET_REFERENCE = /\{\{secret:([A-Za-z_][A-Za-z0-9_]{0,63})\}\}/g;
/** `{argument}` in an http tool's URL template. */
export const URL_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;

export const TOOL_DEFAULTS = { maxToolSteps: 5, httpTimeoutMs: 10_000, maxResponseBytes: 16_384, mcpToolListTtlMs: 5 * 60_000 } as const;
export const MAX_TOOL_STEPS = 20;

const toolName = () =>
	z
		.string()
		.regex(TOOL_NAME_PATTERN, "Letters, digits, underscores and dashes, at most 64 characters")
		.describe("The name the model calls the tool by; unique in the version");
const toolDescription = () => z.string().min(1, "Required").max(2000).describe("What the tool does, for the model deciding when to call it");
const headers = () =>
	z
		.record(z.string().max(4000))
		.refine((value) => Object.keys(value).length <= 20, "At most 20 headers")
		.optional()
		.describe('Request headers; values may reference workspace secrets by name, e.g. {"Authorization": "Bearer {{secret:WEATHER_KEY}}"}');
const argumentNames = (where: string) => z.array(z.string().min(1).max(64)).max(50).optional().describe(`Argument names sent in the ${where}`);

export const ZKnowledgeSearchTool = z
	.object({
		type: z.literal("knowledge_search"),
		name: toolName(),
		description: toolDescription(),
		sourceIds: z.array(z.string().min(1).max(100)).min(1, "At least one source").max(20).describe("Knowledge sources searched"),
		topK: z.number().int().min(1).max(50).optional().describe("Chunks returned per search (default 5)"),
		minScore: z.number().min(0).max(1).optional().describe("Chunks scoring below it are left out (0..1; default 0.25)"),
	})
	.strict();

export const ZHttpTool = z
	.object({
		type: z.literal("http"),
		name: toolName(),
		description: toolDescription(),
		method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
		url: z.string().min(1).max(2000).describe("URL template, e.g. https://api.example.com/weather/{city}: {placeholders} are filled from arguments"),
		parameters: z
			.object({})
			.passthrough()
			.describe(
				"JSON Schema of the arguments: an object schema with properties (keywords: type, properties, required, items, enum, description, minimum, maximum, minLength, maxLength, minItems, maxItems, additionalProperties)",
			),
		query: argumentNames("query string"),
		body: argumentNames("JSON body"),
		headers: headers(),
		timeoutMs: z.number().int().min(100).max(60_000).optional().describe(`Timeout of one call (default ${TOOL_DEFAULTS.httpTimeoutMs})`),
		maxResponseBytes: z
			.number()
			.int()
			.min(256)
			.max(1_000_000)
			.optional()
			.describe(`Bytes of the response kept and given to the model; longer ones are cut with a note (default ${TOOL_DEFAULTS.maxResponseBytes})`),
	})
	.strict();

export const ZMcpTool = z
	.object({
		type: z.literal("mcp"),
		name: toolName(),
		description: toolDescription(),
		url: z.string().min(1).max(2000).describe("The MCP server's Streamable HTTP endpoint"),
		headers: headers(),
		allowedTools: z.array(z.string().min(1).max(64)).min(1, "At least one tool").max(50).describe("The server's tools offered to the model, each as <name>_<tool>"),
	})
	.strict();

export const ZAssistantTool = z.discriminatedUnion("type", [ZKnowledgeSearchTool, ZHttpTool, ZMcpTool]);
export type AssistantTool = z.infer<typeof ZAssistantTool>;
export type KnowledgeSearchTool = z.infer<typeof ZKnowledgeSearchTool>;
export type HttpTool = z.infer<typeof ZHttpTool>;
export type McpTool = z.infer<typeof ZMcpTool>;

const SCHEMA_TYPES = new Set(["object", "string", "number", "integer", "boolean", "array", "null"]);
const SCHEMA_KEYWORDS = new Set([
	"type",
	"properties",
	"required",
	"items",
	"enum",
	"description",
	"title",
	"default",
	"minimum",
	"maximum",
	"minLength",
	"maxLength",
	"minItems",
	"maxItems",
	"additionalProperties",
]);
const MAX_SCHEMA_DEPTH = 8;

/**
 * The JSON Schema keywords a tool's `parameters` may use: enough to describe arguments, checked
 * in linear time by server/tools/validate-arguments.ts. No `pattern` (a tenant's regular
 * expression run on a model's text could hold the event loop), no `$ref`. Returns the problems.
 */
export function checkParametersSchema(schema: unknown, path: (string | number)[] = [], depth = 0): { path: (string | number)[]; message: string }[] {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [{ path, message: "Must be a JSON Schema object" }];
	if (depth > MAX_SCHEMA_DEPTH) return [{ path, message: `Nested deeper than ${MAX_SCHEMA_DEPTH} levels` }];
	const problems: { path: (string | number)[]; message: string }[] = [];
	const node = schema as Record<string, unknown>;
	for (const key of Object.keys(node)) {
		if (!SCHEMA_KEYWORDS.has(key)) problems.push({ path: [...path, key], message: `Unsupported keyword '${key}'` });
	}
	if (node.type !== undefined && (typeof node.type !== "string" || !SCHEMA_TYPES.has(node.type))) problems.push({ path: [...path, "type"], message: "Must be one of object, string, number, integer, boolean, array, null" });
	if (node.properties !== undefined) {
		if (typeof node.properties !== "object" || node.properties === null || Array.isArray(node.properties)) problems.push({ path: [...path, "properties"], message: "Must be an object" });
		else for (const [key, value] of Object.entries(node.properties)) problems.push(...checkParametersSchema(value, [...path, "properties", key], depth + 1));
	}
	if (node.items !== undefined) problems.push(...checkParametersSchema(node.items, [...path, "items"], depth + 1));
	if (node.required !== undefined && (!Array.isArray(node.required) || !node.required.every((item) => typeof item === "string"))) problems.push({ path: [...path, "required"], message: "Must be a list of names" });
	if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.length === 0)) problems.push({ path: [...path, "enum"], message: "Must be a non-empty list" });
	if (node.additionalProperties !== undefined && typeof node.additionalProperties !== "boolean") problems.push({ path: [...path, "additionalProperties"], message: "Must be true or false" });
	for (const key of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
		if (node[key] !== undefined && typeof node[key] !== "number") problems.push({ path: [...path, key], message: "Must be a number" });
	}
	return problems;
}

/** The names a model may call: each tool's, and `<name>_<tool>` for each allowed tool of an MCP server. */
export function offeredToolNames(tool: AssistantTool): string[] {
	return tool.type === "mcp" ? tool.allowedTools.map((allowed) => `${tool.name}_${allowed}`) : [tool.name];
}

function checkUrl(value: string, ctx: z.RefinementCtx, path: (string | number)[]) {
	let url: URL | undefined;
	try {
		url = new URL(value.replace(URL_PLACEHOLDER, "x"));
	} catch {
		// Reported below.
	}
	// https is expected; http is accepted for services the operator allows on its own network (EGRESS_ALLOW_HOSTS).
	if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) ctx.addIssue({ code: "custom", path, message: "Must be an https URL" });
	else if (url.username || url.password) ctx.addIssue({ code: "custom", path, message: "Credentials go in headers, with {{secret:NAME}}, not in the URL" });
}

function checkHttpTool(tool: HttpTool, ctx: z.RefinementCtx, at: (string | number)[]) {
	checkUrl(tool.url, ctx, [...at, "url"]);
	for (const problem of checkParametersSchema(tool.parameters)) ctx.addIssue({ code: "custom", path: [...at, "parameters", ...problem.path], message: problem.message });
	const parameters = tool.parameters as { type?: unknown; properties?: Record<string, unknown> };
	if (parameters.type !== "object") ctx.addIssue({ code: "custom", path: [...at, "parameters", "type"], message: "Must be 'object'" });
	const declared = new Set(Object.keys(parameters.properties ?? {}));
	const origin = tool.url.indexOf("/", tool.url.indexOf("//") + 2);
	if (origin !== -1 && URL_PLACEHOLDER.test(tool.url.slice(0, origin))) ctx.addIssue({ code: "custom", path: [...at, "url"], message: "Placeholders may not change the host" });
	URL_PLACEHOLDER.lastIndex = 0;
	const placed = new Set<string>();
	for (const match of tool.url.matchAll(URL_PLACEHOLDER)) {
		placed.add(match[1]!);
		if (!declared.has(match[1]!)) ctx.addIssue({ code: "custom", path: [...at, "url"], message: `Placeholder {${match[1]}} is not a declared argument` });
	}
	for (const where of ["query", "body"] as const) {
		for (const [index, name] of (tool[where] ?? []).entries()) {
			if (!declared.has(name)) ctx.addIssue({ code: "custom", path: [...at, where, index], message: `'${name}' is not a declared argument` });
			if (placed.has(name)) ctx.addIssue({ code: "custom", path: [...at, where, index], message: `'${name}' is already placed` });
			placed.add(name);
		}
	}
	if (tool.body && tool.body.length > 0 && tool.method === "GET") ctx.addIssue({ code: "custom", path: [...at, "body"], message: "A GET request has no body" });
	for (const name of declared) {
		if (!placed.has(name)) ctx.addIssue({ code: "custom", path: [...at, "parameters", "properties", name], message: `'${name}' goes nowhere: put it in the URL, query or body` });
	}
}

/** A version's tools: each valid, model-facing names unique (MCP tools expanded to `<name>_<tool>`). */
export const ZAssistantTools = z
	.array(ZAssistantTool)
	.max(32)
	.superRefine((tools, ctx) => {
		const seen = new Set<string>();
		for (const [index, tool] of tools.entries()) {
			for (const name of offeredToolNames(tool)) {
				if (!TOOL_NAME_PATTERN.test(name)) ctx.addIssue({ code: "custom", path: [index, "allowedTools"], message: `'${name}' is not a valid tool name (at most 64 letters, digits, _ or -)` });
				if (seen.has(name)) ctx.addIssue({ code: "custom", path: [index, "name"], message: `Tool name '${name}' is used twice` });
				seen.add(name);
			}
			if (tool.type === "http") checkHttpTool(tool, ctx, [index]);
			if (tool.type === "mcp") checkUrl(tool.url, ctx, [index, "url"]);
			for (const [header, value] of Object.entries(tool.type === "knowledge_search" ? {} : (tool.headers ?? {}))) {
				if (/[\r\n]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) ctx.addIssue({ code: "custom", path: [index, "headers", header], message: "Not a valid header" });
			}
		}
	})
	.describe(
		'Tools the model may call, run on the server: {type: "knowledge_search", name, description, sourceIds, topK?, minScore?}, {type: "http", name, description, method, url (with {argument} placeholders), parameters (JSON Schema), query?, body?, headers? ({{secret:NAME}} allowed), timeoutMs?, maxResponseBytes?}, {type: "mcp", name, description, url, headers?, allowedTools}',
	);
