import { describe, expect, it } from "vitest";
import { z, type ZodRawShape, type ZodTypeAny } from "zod";
import { buildCommandTree } from "../../scripts/admin/command-line";
import type { CommandSpec, FlagSpec } from "../../scripts/admin/command-spec";
import { COMMANDS, GROUPS, TOOLS_WITHOUT_COMMAND } from "../../scripts/admin/command-table";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";

/** Mapped in the table ahead of the tool itself (the command runs its use case until then). */

const registered = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));
const mirroring = COMMANDS.filter((command) => command.tool && registered.has(command.tool));

/** The schema without optional/nullable/default/refinement wrappers, and what they said. */
function unwrap(schema: ZodTypeAny): { inner: ZodTypeAny; optional: boolean; defaultValue?: unknown } {
	let optional = false;
	let defaultValue: unknown;
	for (;;) {
		if (schema instanceof z.ZodOptional) {
			optional = true;
			schema = schema.unwrap();
		} else if (schema instanceof z.ZodNullable) schema = schema.unwrap();
		else if (schema instanceof z.ZodDefault) {
			optional = true;
			defaultValue = schema._def.defaultValue();
			schema = schema._def.innerType;
		} else if (schema instanceof z.ZodEffects) schema = schema.innerType();
		else return { inner: schema, optional, defaultValue };
	}
}

/** The field at a dotted key, through nested objects and discriminated unions. */
function fieldAt(shape: ZodRawShape, key: string): ZodTypeAny | undefined {
	let current: ZodTypeAny | undefined = z.object(shape);
	for (const segment of key.split(".")) {
		const { inner }: { inner: ZodTypeAny } = unwrap(current as ZodTypeAny);
		if (inner instanceof z.ZodObject) current = inner.shape[segment];
		else if (inner instanceof z.ZodDiscriminatedUnion) current = (inner.options as z.AnyZodObject[]).map((option) => option.shape[segment]).find(Boolean);
		else return undefined;
		if (!current) return undefined;
	}
	return current;
}

/** How a flag of this type must look in the schema; a mismatch names what differs. */
function typeMismatch(flag: FlagSpec, field: ZodTypeAny): string | undefined {
	const { inner } = unwrap(field);
	const enumValues = (schema: ZodTypeAny) => (schema instanceof z.ZodEnum ? [...(schema.options as string[])].sort() : undefined);
	const choices = flag.choices ? [...flag.choices].sort() : undefined;
	switch (flag.type) {
		case "string":
		case "file":
			if (!(inner instanceof z.ZodString || inner instanceof z.ZodEnum)) return `is ${inner.constructor.name}, not text`;
			return JSON.stringify(choices) === JSON.stringify(enumValues(inner)) ? undefined : `choices ${JSON.stringify(choices)} differ from the schema's ${JSON.stringify(enumValues(inner))}`;
		case "integer":
			return inner instanceof z.ZodNumber && inner.isInt ? undefined : "is not an integer";
		case "number":
			return inner instanceof z.ZodNumber ? undefined : "is not a number";
		case "boolean":
			return inner instanceof z.ZodBoolean ? undefined : "is not a boolean";
		case "list": {
			if (!(inner instanceof z.ZodArray)) return "is not a list";
			const element = unwrap(inner.element).inner;
			return JSON.stringify(choices) === JSON.stringify(enumValues(element)) ? undefined : `choices ${JSON.stringify(choices)} differ from the schema's ${JSON.stringify(enumValues(element))}`;
		}
		case "json":
			return [z.ZodObject, z.ZodRecord, z.ZodArray, z.ZodUnion, z.ZodDiscriminatedUnion, z.ZodUnknown].some((type) => inner instanceof type) ? undefined : `is ${inner.constructor.name}, not JSON`;
	}
}

function problemsOf(command: CommandSpec): string[] {
	const tool = registered.get(command.tool as string);
	if (!tool) return [];
	const problems: string[] = [];
	const shape = tool.inputSchema;
	const mapped = command.flags.filter((flag): flag is FlagSpec & { key: string } => flag.key !== null);
	for (const flag of mapped) {
		const field = fieldAt(shape, flag.key);
		if (!field) {
			problems.push(`--${flag.name}: ${tool.name} has no argument ${flag.key}`);
			continue;
		}
		const mismatch = typeMismatch(flag, field);
		if (mismatch) problems.push(`--${flag.name}: ${tool.name}.${flag.key} ${mismatch}`);
		const { defaultValue } = unwrap(field);
		if (flag.default !== undefined && defaultValue !== undefined && String(defaultValue) !== flag.default) {
			problems.push(`--${flag.name}: default ${flag.default}, but ${tool.name} defaults to ${String(defaultValue)}`);
		}
	}
	const base = command.base?.() ?? {};
	const inOneOf = new Set((command.oneOf ?? []).flat());
	for (const [argument, schema] of Object.entries(shape)) {
		const reaching = mapped.filter((flag) => flag.key.split(".")[0] === argument);
		if (reaching.length === 0 && !(argument in base)) {
			problems.push(`${tool.name}.${argument} has no flag`);
			continue;
		}
		const needed = !unwrap(schema).optional && !command.operatorOptional?.includes(argument);
		const supplied = argument in base || reaching.some((flag) => flag.required || flag.default !== undefined || inOneOf.has(flag.name));
		if (needed && !supplied) problems.push(`${tool.name}.${argument} is required, but no required flag (or default, or one-of set) supplies it`);
	}
	return problems;
}

describe("the operator CLI mirrors the MCP tools", () => {
	it("has a command for every tool in the registry", () => {
		const mirrored = new Set(COMMANDS.map((command) => command.tool).filter(Boolean));
		const missing = MCP_TOOLS.map((tool) => tool.name).filter((name) => !mirrored.has(name) && !(name in TOOLS_WITHOUT_COMMAND));
		expect(missing, "tools without a CLI command: add a row to scripts/admin/*-commands.ts").toEqual([]);
		// An exemption must name a real tool, and be the exception it claims to be.
		for (const name of Object.keys(TOOLS_WITHOUT_COMMAND)) {
			expect(registered.has(name), name).toBe(true);
			expect(mirrored.has(name), name).toBe(false);
		}
	});

	it("names only tools that exist, and runs a tool or a use case", () => {
		for (const command of COMMANDS.filter((candidate) => candidate.tool)) expect(registered.has(command.tool as string), `${command.path} mirrors an unknown tool ${command.tool}`).toBe(true);
		for (const command of COMMANDS) expect(command.tool ?? command.useCase, `${command.path} runs neither a tool nor a use case`).toBeDefined();
	});

	it("gives every argument of each tool a flag of the right type, choices and default, required where the tool requires it", () => {
		expect(mirroring.length).toBeGreaterThan(40);
		const problems = mirroring.flatMap((command) => problemsOf(command).map((problem) => `${command.path}: ${problem}`));
		expect(problems).toEqual([]);
	});

	it("forms one tree: no command is defined twice or is also a group, and every group is described", () => {
		const root = buildCommandTree(COMMANDS, GROUPS);
		const groups: string[] = [];
		const visit = (node: typeof root) => {
			if (!node.command && node.path) groups.push(node.path);
			for (const child of node.children.values()) visit(child);
		};
		visit(root);
		expect(groups.filter((group) => !GROUPS[group])).toEqual([]);
		expect(Object.keys(GROUPS).filter((group) => !groups.includes(group))).toEqual([]);
	});
});
