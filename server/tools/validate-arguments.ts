/**
 * Checks a model's arguments against a tool's JSON Schema, restricted to the keywords
 * contract/inputs/assistant-tools.ts admits (no `pattern`): one pass over the value, linear in its
 * size, so arguments a model writes cannot hold the event loop. Returns the first problems found.
 */
export function validateArguments(schema: Record<string, unknown>, value: unknown): string[] {
	const problems: string[] = [];
	check(schema, value, "arguments", problems);
	return problems.slice(0, 5);
}

function typeOf(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
	return typeof value;
}

function check(schema: Record<string, unknown>, value: unknown, at: string, problems: string[]): void {
	if (problems.length >= 5) return;
	const actual = typeOf(value);
	if (typeof schema.type === "string") {
		const fits = schema.type === actual || (schema.type === "number" && actual === "integer");
		if (!fits) {
			problems.push(`${at} must be ${schema.type === "integer" || schema.type === "array" || schema.type === "object" ? "an" : "a"} ${schema.type}, not ${actual}`);
			return;
		}
	}
	if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
		problems.push(`${at} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`);
	}
	if (typeof value === "number") {
		if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${at} must be at least ${schema.minimum}`);
		if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${at} must be at most ${schema.maximum}`);
	}
	if (typeof value === "string") {
		if (typeof schema.minLength === "number" && value.length < schema.minLength) problems.push(`${at} must have at least ${schema.minLength} characters`);
		if (typeof schema.maxLength === "number" && value.length > schema.maxLength) problems.push(`${at} must have at most ${schema.maxLength} characters`);
	}
	if (Array.isArray(value)) {
		if (typeof schema.minItems === "number" && value.length < schema.minItems) problems.push(`${at} must have at least ${schema.minItems} items`);
		if (typeof schema.maxItems === "number" && value.length > schema.maxItems) problems.push(`${at} must have at most ${schema.maxItems} items`);
		const items = schema.items;
		if (items && typeof items === "object") for (const [index, item] of value.entries()) check(items as Record<string, unknown>, item, `${at}[${index}]`, problems);
	}
	if (actual === "object") {
		const object = value as Record<string, unknown>;
		const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
		for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
			if (object[name] === undefined) problems.push(`${at}.${name} is required`);
		}
		for (const [name, item] of Object.entries(object)) {
			const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
			if (property) check(property, item, `${at}.${name}`, problems);
			else if (schema.additionalProperties === false || schema.properties !== undefined) problems.push(`${at}.${name} is not an argument of this tool`);
		}
	}
}
