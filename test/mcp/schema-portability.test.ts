/**
 * Every tool's input and output schema, as tools/list sends it (the MCP SDK's own conversion of the
 * zod shapes), passes the MCP Inspector's schema portability check: the rules of Inspector 2.12.0
 * (core/json/schemaLint.ts, run by `inspector --cli --method tools/list`, which reports "Schema
 * portability: N warnings"), applied here by the same walk, plus two of ours that clients with a
 * single-type schema dialect (Gemini's function declarations) also refuse: any `$ref`, and string
 * formats other than date-time.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { connectAs, type McpSession, userPrincipal } from "./mcp-helpers";
import { defineTool, READ_ONLY } from "../../server/mcp/tool-definition";
import { createMcpServer } from "../../server/mcp/create-mcp-server";
import { createUseCaseContext } from "../../server/modules/platform-services";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

interface Finding {
	tool: string;
	schema: "inputSchema" | "outputSchema";
	path: string;
	rule: string;
}

/** Keywords whose value is one subschema, a list of them, or a map of them (JSON Schema 2020-12 and draft 7), as the Inspector walks them. */
const SUBSCHEMA_KEYWORDS = ["items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema"];
const SUBSCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"];
/** Where a bare `true`/`false` is a normal value, not a schema the Inspector reports. */
const BOOLEAN_VALUED_KEYWORDS = new Set(["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"]);
/** A node with none of these accepts any value (the Inspector's "untyped-schema"). */
const CONSTRAINING_KEYWORDS = new Set([
	"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "format",
	"contentMediaType", "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
	"required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems", "properties",
	"patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "$recursiveRef",
]);
/** Formats a single-type dialect accepts on strings. */
const PORTABLE_FORMATS = new Set(["date-time", "enum"]);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The findings for one schema, walking every subschema position. */
function lint(tool: string, schema: Finding["schema"], root: unknown): Finding[] {
	const findings: Finding[] = [];
	const report = (path: string, rule: string) => findings.push({ tool, schema, path: path || "(root)", rule });
	const walk = (node: unknown, path: string, keyword: string | undefined, depth: number) => {
		if (depth > 64) return;
		if (typeof node === "boolean") {
			if (keyword === undefined || !BOOLEAN_VALUED_KEYWORDS.has(keyword)) report(path, "boolean-schema");
			return;
		}
		if (!isObject(node)) return;
		// The Inspector's rules.
		if (Array.isArray(node.type)) report(path, "type-union");
		if (typeof node.$ref === "string" && node.$ref !== "" && !node.$ref.startsWith("#")) report(path, "remote-ref");
		const constrains = Object.keys(node).some((key) => CONSTRAINING_KEYWORDS.has(key)) || ("if" in node && ("then" in node || "else" in node));
		if (!constrains && keyword !== "not") report(path, "untyped-schema");
		// Ours.
		if ("$ref" in node) report(path, "ref");
		if (typeof node.format === "string" && !PORTABLE_FORMATS.has(node.format)) report(path, `format ${node.format}`);
		for (const key of SUBSCHEMA_MAP_KEYWORDS) {
			if (isObject(node[key])) for (const [name, child] of Object.entries(node[key])) walk(child, `${path}.${key}.${name}`, key, depth + 1);
		}
		for (const key of SUBSCHEMA_LIST_KEYWORDS) {
			const list = node[key];
			if (Array.isArray(list)) list.forEach((child, index) => walk(child, `${path}.${key}[${index}]`, key, depth + 1));
		}
		for (const key of SUBSCHEMA_KEYWORDS) {
			if (!(key in node)) continue;
			const value = node[key];
			if (key === "items" && Array.isArray(value)) value.forEach((child, index) => walk(child, `${path}.items[${index}]`, key, depth + 1));
			else walk(value, `${path}.${key}`, key, depth + 1);
		}
	};
	walk(root, "", undefined, 0);
	return findings;
}

function lintTools(tools: Tool[]): Finding[] {
	return tools.flatMap((tool) => [...lint(tool.name, "inputSchema", tool.inputSchema), ...(tool.outputSchema ? lint(tool.name, "outputSchema", tool.outputSchema) : [])]);
}

describe("MCP tool schemas are portable", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let session: McpSession;
	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId }));
	}, 60_000);
	afterAll(async () => {
		await session?.close();
		await platform?.stop();
	});

	it("every tool's input and output schema passes the Inspector's checks and ours, with no finding at all", async () => {
		const { tools } = await session.client.listTools();
		expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
		expect(tools.every((tool) => tool.outputSchema !== undefined)).toBe(true);
		expect(lintTools(tools)).toEqual([]);
	});

	it("validation is as strict as before: variable values of another kind, a base URL that is not http(s)", async () => {
		const { workspaceId } = workspace;
		await session.call("create_assistant", { workspaceId, slug: "portable", name: "Portable" });
		await session.call("update_assistant_draft", { workspaceId, slug: "portable", patch: { variables: [{ name: "tier", type: "number", required: true }] } });
		await session.call("create_assistant_version", { workspaceId, slug: "portable" });
		await session.call("publish_deployment", { workspaceId, slug: "portable", version: 1 });
		// Not a string, number or boolean: refused by the schema, naming the variable.
		expect(await session.fail("execute_assistant", { workspaceId, slug: "portable", input: "hi", variables: { tier: { level: 2 } } })).toMatch(/variables\.tier/);
		// The declared type is the use case's to check.
		expect(await session.fail("run_playground", { workspaceId, slug: "portable", input: "hi", variables: { tier: "gold" } })).toContain("variables.tier: Expected a number, got a string");
		expect(await session.fail("update_assistant_draft", { workspaceId, slug: "portable", patch: { variables: [{ name: "tier", type: "number", default: "two" }] } })).toMatch(/default must have the variable's type/);
		expect(await session.fail("set_provider_credential", { workspaceId, provider: "openai-compatible", apiKey: "sk-0123456789", baseUrl: "not a url" })).toContain(
			"baseUrl: Must be an http(s) URL",
		);
	});

	it("the check finds what the Inspector reported before: type arrays, values of any type, references", async () => {
		// The shapes the tools had, served by the same server factory and listed by a real client.
		const unportable = defineTool({
			name: "unportable",
			title: "Unportable",
			description: "Schemas as they were",
			inputSchema: { variables: z.record(z.union([z.string(), z.number(), z.boolean()])).optional(), schema: z.record(z.unknown()).optional() },
			outputSchema: { description: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(), url: z.string().url() },
			annotations: READ_ONLY,
			permission: null,
			run: async () => ({ description: null, createdAt: "", updatedAt: "", url: "" }),
		});
		const reused = z.string();
		const referencing = defineTool({ ...unportable, name: "referencing", inputSchema: {}, outputSchema: { createdAt: reused, updatedAt: reused }, run: async () => ({ createdAt: "", updatedAt: "" }) });
		const server = createMcpServer(createUseCaseContext(platform.services, session.principal), {}, [unportable, referencing]);
		const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
		const client = new Client({ name: "portability-test", version: "1.0.0" });
		await server.connect(serverTransport);
		await client.connect(clientTransport);
		try {
			const { tools } = await client.listTools();
			expect(lintTools(tools).map((finding) => `${finding.tool} ${finding.schema} ${finding.path} ${finding.rule}`)).toEqual([
				"unportable inputSchema .properties.variables.additionalProperties type-union",
				"unportable inputSchema .properties.schema.additionalProperties untyped-schema",
				"unportable outputSchema .properties.description type-union",
				"unportable outputSchema .properties.url format uri",
				"referencing outputSchema .properties.updatedAt ref",
			]);
		} finally {
			await client.close();
		}
	});
});
