import type { PatternMatch } from "./pattern-engine";
import { PATTERN_LIMITS, unsupportedConstruct } from "./tenant-pattern";

/**
 * A documented subset of JSON Schema, enough for "the answer is an object with these fields":
 * type (string or list), properties, required, additionalProperties (boolean or schema), items
 * (one schema), enum, const, minimum, maximum, minLength, maxLength, pattern, minItems, maxItems.
 * Other keywords are refused when the scorer is written, rather than silently ignored. `pattern`
 * runs on the same linear-time engine as the regex scorer (RE2, off the event loop), never on
 * JavaScript's backtracking RegExp. Validation is linear in the size of the value times the depth
 * of the schema.
 */
const KEYWORDS: ReadonlySet<string> = new Set([
	"$schema", "title", "description", "type", "properties", "required", "additionalProperties", "items", "enum", "const",
	"minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
]);
const TYPES: ReadonlySet<string> = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const MAX_DEPTH = 32;
const MAX_SCHEMA_NODES = 1_000;
/** Each is compiled when the scorer is written and run on every matching string: a handful is what a schema needs. */
const MAX_SCHEMA_PATTERNS = 20;

type Schema = Record<string, unknown>;

/** The problem with a schema, or null when it is within the subset. */
export function checkJsonSchemaSubset(schema: unknown): string | null {
	let nodes = 0;
	let patterns = 0;
	const check = (node: unknown, path: string, depth: number): string | null => {
		if (typeof node === "boolean") return null;
		if (node === null || typeof node !== "object" || Array.isArray(node)) return `${path}: a schema must be an object`;
		if (depth > MAX_DEPTH) return `${path}: schemas may nest at most ${MAX_DEPTH} levels`;
		if (++nodes > MAX_SCHEMA_NODES) return `the schema may have at most ${MAX_SCHEMA_NODES} sub-schemas`;
		const schemaNode = node as Schema;
		for (const keyword of Object.keys(schemaNode)) {
			if (!KEYWORDS.has(keyword)) return `${path}: '${keyword}' is not supported (supported: ${[...KEYWORDS].filter((k) => !k.startsWith("$") && k !== "title" && k !== "description").join(", ")})`;
		}
		const types = schemaNode.type === undefined ? [] : Array.isArray(schemaNode.type) ? schemaNode.type : [schemaNode.type];
		for (const type of types) if (typeof type !== "string" || !TYPES.has(type)) return `${path}.type: unknown type ${JSON.stringify(type)}`;
		for (const keyword of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
			if (schemaNode[keyword] !== undefined && typeof schemaNode[keyword] !== "number") return `${path}.${keyword}: must be a number`;
		}
		if (schemaNode.pattern !== undefined) {
			if (typeof schemaNode.pattern !== "string" || schemaNode.pattern === "") return `${path}.pattern: must be a regular expression`;
			if (++patterns > MAX_SCHEMA_PATTERNS) return `the schema may have at most ${MAX_SCHEMA_PATTERNS} patterns`;
			if (schemaNode.pattern.length > PATTERN_LIMITS.patternLength) return `${path}.pattern: at most ${PATTERN_LIMITS.patternLength} characters`;
			const unsupported = unsupportedConstruct(schemaNode.pattern);
			if (unsupported) return `${path}.pattern: ${unsupported}`;
		}
		if (schemaNode.required !== undefined && (!Array.isArray(schemaNode.required) || schemaNode.required.some((name) => typeof name !== "string"))) return `${path}.required: must be a list of names`;
		if (schemaNode.enum !== undefined && !Array.isArray(schemaNode.enum)) return `${path}.enum: must be a list`;
		if (schemaNode.properties !== undefined) {
			if (schemaNode.properties === null || typeof schemaNode.properties !== "object" || Array.isArray(schemaNode.properties)) return `${path}.properties: must be an object`;
			for (const [name, child] of Object.entries(schemaNode.properties)) {
				const problem = check(child, `${path}.properties.${name}`, depth + 1);
				if (problem) return problem;
			}
		}
		if (schemaNode.additionalProperties !== undefined) {
			const problem = check(schemaNode.additionalProperties, `${path}.additionalProperties`, depth + 1);
			if (problem) return problem;
		}
		if (schemaNode.items !== undefined) {
			const problem = check(schemaNode.items, `${path}.items`, depth + 1);
			if (problem) return problem;
		}
		return null;
	};
	return check(schema, "schema", 0);
}

/** Every `pattern` of a schema already checked by checkJsonSchemaSubset, with where it is (to compile them when the scorer is written). */
export function jsonSchemaPatterns(schema: unknown, path = "schema"): { path: string; pattern: string }[] {
	if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
	const node = schema as Schema;
	const found = typeof node.pattern === "string" ? [{ path: `${path}.pattern`, pattern: node.pattern }] : [];
	const properties = (node.properties as Record<string, unknown> | undefined) ?? {};
	for (const [name, child] of Object.entries(properties)) found.push(...jsonSchemaPatterns(child, `${path}.properties.${name}`));
	found.push(...jsonSchemaPatterns(node.additionalProperties, `${path}.additionalProperties`));
	found.push(...jsonSchemaPatterns(node.items, `${path}.items`));
	return found;
}

/** A `pattern` that could not be run on a value (too long a text, the engine stopped): the scorer errors rather than guessing. */
export class PatternNotRun extends Error {}

/** Runs a schema's `pattern` on a string: the pattern engine, with the lane of the workspace. */
export type PatternMatcher = (pattern: string, text: string) => Promise<PatternMatch>;

function typeOf(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
	if (type === "integer") return typeof value === "number" && Number.isInteger(value);
	return typeOf(value) === type;
}

/** Structural equality for enum and const (values come from JSON.parse: no cycles). */
function jsonEqual(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeOf(a) !== typeOf(b) || typeof a !== "object" || a === null || b === null) return false;
	if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => jsonEqual(item, (b as unknown[])[index]));
	const aKeys = Object.keys(a as object);
	const bObject = b as Record<string, unknown>;
	return aKeys.length === Object.keys(bObject).length && aKeys.every((key) => Object.hasOwn(bObject, key) && jsonEqual((a as Record<string, unknown>)[key], bObject[key]));
}

/**
 * The first violation, as `path: problem`, or null when the value satisfies the schema. Throws
 * PatternNotRun when a `pattern` could not be run.
 */
export async function validateJsonSchemaSubset(schema: unknown, value: unknown, matchPattern: PatternMatcher, path = "$"): Promise<string | null> {
	if (schema === true) return null;
	if (schema === false) return `${path}: no value is allowed here`;
	const node = schema as Schema;
	const types = node.type === undefined ? [] : Array.isArray(node.type) ? (node.type as string[]) : [node.type as string];
	if (types.length > 0 && !types.some((type) => matchesType(value, type))) return `${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`;
	if (node.const !== undefined && !jsonEqual(node.const, value)) return `${path}: must equal ${JSON.stringify(node.const)}`;
	if (Array.isArray(node.enum) && !node.enum.some((option) => jsonEqual(option, value))) return `${path}: must be one of ${JSON.stringify(node.enum)}`;
	if (typeof value === "number") {
		if (typeof node.minimum === "number" && value < node.minimum) return `${path}: must be at least ${node.minimum}`;
		if (typeof node.maximum === "number" && value > node.maximum) return `${path}: must be at most ${node.maximum}`;
	}
	if (typeof value === "string") {
		const length = [...value].length;
		if (typeof node.minLength === "number" && length < node.minLength) return `${path}: must have at least ${node.minLength} characters`;
		if (typeof node.maxLength === "number" && length > node.maxLength) return `${path}: must have at most ${node.maxLength} characters`;
		if (typeof node.pattern === "string") {
			const outcome = await matchPattern(node.pattern, value);
			if ("problem" in outcome) throw new PatternNotRun(`${path}: ${outcome.problem}`);
			if (!outcome.matched) return `${path}: must match the pattern /${node.pattern}/`;
		}
	}
	if (Array.isArray(value)) {
		if (typeof node.minItems === "number" && value.length < node.minItems) return `${path}: must have at least ${node.minItems} items`;
		if (typeof node.maxItems === "number" && value.length > node.maxItems) return `${path}: must have at most ${node.maxItems} items`;
		if (node.items !== undefined) {
			for (let index = 0; index < value.length; index++) {
				const problem = await validateJsonSchemaSubset(node.items, value[index], matchPattern, `${path}[${index}]`);
				if (problem) return problem;
			}
		}
	}
	if (typeOf(value) === "object") {
		const object = value as Record<string, unknown>;
		for (const name of (node.required as string[] | undefined) ?? []) if (!Object.hasOwn(object, name)) return `${path}: missing required property '${name}'`;
		const properties = (node.properties as Record<string, unknown> | undefined) ?? {};
		for (const [name, child] of Object.entries(object)) {
			const childSchema = Object.hasOwn(properties, name) ? properties[name] : node.additionalProperties;
			if (childSchema === undefined) continue;
			const problem = await validateJsonSchemaSubset(childSchema, child, matchPattern, `${path}.${name}`);
			if (problem) return problem;
		}
	}
	return null;
}
