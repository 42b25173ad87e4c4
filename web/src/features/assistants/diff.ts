/** Comparing two configurations: field by field, and the prompt line by line. */

export interface LineChange {
	kind: "same" | "added" | "removed";
	text: string;
	/** 1-based line numbers in the older and the newer text. */
	before?: number;
	after?: number;
}

/** Past this many cells the middle of two long, very different prompts is shown as replaced whole. */
const MAX_LCS_CELLS = 4_000_000;

/**
 * A line diff (longest common subsequence, after trimming the common start and end), with every
 * line of both texts in order: unchanged, removed from `before`, or added in `after`.
 */
export function diffLines(beforeText: string, afterText: string): LineChange[] {
	const a = beforeText.split("\n");
	const b = afterText.split("\n");
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
	let endA = a.length;
	let endB = b.length;
	while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
		endA -= 1;
		endB -= 1;
	}
	const changes: LineChange[] = [];
	for (let index = 0; index < start; index += 1) changes.push({ kind: "same", text: a[index] as string, before: index + 1, after: index + 1 });
	const middleA = a.slice(start, endA);
	const middleB = b.slice(start, endB);
	const n = middleA.length;
	const m = middleB.length;
	if (n * m > MAX_LCS_CELLS) {
		middleA.forEach((text, index) => changes.push({ kind: "removed", text, before: start + index + 1 }));
		middleB.forEach((text, index) => changes.push({ kind: "added", text, after: start + index + 1 }));
	} else {
		// lengths[i][j]: LCS of middleA[i..] and middleB[j..], in one flat array.
		const width = m + 1;
		const lengths = new Uint32Array((n + 1) * width);
		for (let i = n - 1; i >= 0; i -= 1) {
			for (let j = m - 1; j >= 0; j -= 1) {
				lengths[i * width + j] = middleA[i] === middleB[j] ? (lengths[(i + 1) * width + j + 1] as number) + 1 : Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
			}
		}
		let i = 0;
		let j = 0;
		while (i < n || j < m) {
			if (i < n && j < m && middleA[i] === middleB[j]) {
				changes.push({ kind: "same", text: middleA[i] as string, before: start + i + 1, after: start + j + 1 });
				i += 1;
				j += 1;
			} else if (i < n && (j === m || (lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number))) {
				// Removals before additions: a replaced line reads as the old one, then the new one.
				changes.push({ kind: "removed", text: middleA[i] as string, before: start + i + 1 });
				i += 1;
			} else {
				changes.push({ kind: "added", text: middleB[j] as string, after: start + j + 1 });
				j += 1;
			}
		}
	}
	for (let index = 0; index < a.length - endA; index += 1) {
		changes.push({ kind: "same", text: a[endA + index] as string, before: endA + index + 1, after: endB + index + 1 });
	}
	return changes;
}

export interface FieldChange {
	field: string;
	before?: string;
	after?: string;
	change: "same" | "added" | "removed" | "changed";
}

/**
 * Every leaf of a configuration by a path a person reads: `generation.temperature`,
 * `variables[customer].required` (list entries by their name or source, not their position, so a
 * reordering is not a change), `tools[0].name`. Empty lists and objects have no leaves: an entry
 * that appears shows as added, field by field.
 */
function flatten(value: unknown, path: string, into: Map<string, string>): void {
	if (Array.isArray(value)) {
		value.forEach((item, index) => {
			const record = item as Record<string, unknown> | null;
			const id = record && typeof record === "object" ? (record.name ?? record.sourceId) : undefined;
			flatten(item, `${path}[${typeof id === "string" ? id : index}]`, into);
		});
		return;
	}
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>);
		for (const [key, child] of entries) flatten(child, path ? `${path}.${key}` : key, into);
		return;
	}
	into.set(path, JSON.stringify(value));
}

/** Field-by-field comparison of two configurations, the system prompt left to diffLines. */
export function diffConfigs(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
	const { systemPrompt: _before, ...restBefore } = before;
	const { systemPrompt: _after, ...restAfter } = after;
	const a = new Map<string, string>();
	const b = new Map<string, string>();
	flatten(restBefore, "", a);
	flatten(restAfter, "", b);
	const fields = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x.localeCompare(y, undefined, { numeric: true }));
	return fields.map((field) => {
		const was = a.get(field);
		const is = b.get(field);
		const change = was === undefined ? "added" : is === undefined ? "removed" : was === is ? "same" : "changed";
		return { field, before: was, after: is, change };
	});
}
