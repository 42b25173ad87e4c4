import { decodeText } from "./decode-text";
import { IngestionError, type ParseLimits, type ParsedDocument, type TextBlock, TextBudget, headingTitle } from "./parsed-document";

/** Every line repeats its whole path, so deep nesting multiplies the text: the budget sees each line. */
function flatten(value: unknown, path: string, lines: string[], budget: TextBudget): void {
	let line: string;
	if (Array.isArray(value)) {
		for (let index = 0; index < value.length; index++) flatten(value[index], `${path}[${index}]`, lines, budget);
		if (value.length > 0) return;
		line = `${path || "$"}: []`;
	} else if (value !== null && typeof value === "object") {
		const keys = Object.keys(value);
		for (const key of keys) flatten((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, lines, budget);
		if (keys.length > 0) return;
		line = `${path || "$"}: {}`;
	} else {
		line = `${path || "$"}: ${typeof value === "string" ? value : JSON.stringify(value)}`;
	}
	budget.spend(line.length + 1);
	lines.push(line);
}

/**
 * .json: flattened to `path: value` lines (`orders[0].customer.name: Ada`), so every value is
 * searchable next to the keys that give it meaning. Lines are grouped by top-level member.
 */
export function parseJson(bytes: Uint8Array, limits: ParseLimits): ParsedDocument {
	const budget = new TextBudget(limits.maxCharacters);
	let value: unknown;
	try {
		value = JSON.parse(decodeText(bytes));
	} catch (error) {
		throw new IngestionError(`The file is not valid JSON (${(error as Error).message})`, { cause: error });
	}
	const groups: [string, unknown][] =
		value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [["", value]];
	const blocks: TextBlock[] = [];
	for (const [key, member] of groups) {
		const lines: string[] = [];
		flatten(member, key, lines, budget);
		if (lines.length) blocks.push({ text: lines.join("\n"), ...(key ? { headingPath: [headingTitle(key)] } : {}) });
	}
	return { blocks };
}
