import { decodeText } from "./decode-text";
import { IngestionError, type ParsedDocument, type TextBlock } from "./parsed-document";

function flatten(value: unknown, path: string, lines: string[]): void {
	if (Array.isArray(value)) {
		if (value.length === 0) lines.push(`${path || "$"}: []`);
		value.forEach((item, index) => flatten(item, `${path}[${index}]`, lines));
	} else if (value !== null && typeof value === "object") {
		const entries = Object.entries(value);
		if (entries.length === 0) lines.push(`${path || "$"}: {}`);
		for (const [key, item] of entries) flatten(item, path ? `${path}.${key}` : key, lines);
	} else {
		lines.push(`${path || "$"}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
	}
}

/**
 * .json: flattened to `path: value` lines (`orders[0].customer.name: Ada`), so every value is
 * searchable next to the keys that give it meaning. Lines are grouped by top-level member.
 */
export function parseJson(bytes: Uint8Array): ParsedDocument {
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
		flatten(member, key, lines);
		if (lines.length) blocks.push({ text: lines.join("\n"), ...(key ? { headingPath: [key] } : {}) });
	}
	return { blocks };
}
