/**
 * A scorer as its form holds it (text in inputs, ticks in checkboxes), and the scorer the API
 * takes (contract/inputs/evaluations.ts). Numbers and JSON are read here; what they must be is
 * for the server to say, next to the field.
 */
export const SCORER_TYPES = ["exact_match", "contains", "regex", "json", "numeric", "rubric"] as const;
export type ScorerType = (typeof SCORER_TYPES)[number];

export const SCORER_LABELS: Record<ScorerType, string> = {
	exact_match: "Exact match",
	contains: "Contains",
	regex: "Regular expression",
	json: "JSON",
	numeric: "Number",
	rubric: "Rubric (graded by a model)",
};

export interface ScorerDraft {
	type: ScorerType;
	name: string;
	caseSensitive: boolean;
	trim: boolean;
	value: string;
	pattern: string;
	flags: string;
	schema: string;
	expected: string;
	tolerance: string;
	relativeTolerance: string;
	criteria: string;
	provider: string;
	model: string;
	passThreshold: string;
}

export function newScorerDraft(type: ScorerType): ScorerDraft {
	return {
		type,
		name: "",
		// Each type's own default: exact match is case-sensitive, contains is not.
		caseSensitive: type === "exact_match",
		trim: true,
		value: "",
		pattern: "",
		flags: "",
		schema: "",
		expected: "",
		tolerance: "0",
		relativeTolerance: "",
		criteria: "",
		provider: "openai",
		model: "",
		passThreshold: "0.5",
	};
}

/** A stored scorer back in its form, to replace the case it belongs to. */
export function scorerDraftFrom(spec: Record<string, unknown> & { type: string }): ScorerDraft {
	const type = (SCORER_TYPES as readonly string[]).includes(spec.type) ? (spec.type as ScorerType) : "exact_match";
	const draft = newScorerDraft(type);
	const text = (value: unknown, fallback: string) => (value === undefined || value === null ? fallback : String(value));
	return {
		...draft,
		name: text(spec.name, ""),
		caseSensitive: typeof spec.caseSensitive === "boolean" ? spec.caseSensitive : draft.caseSensitive,
		trim: typeof spec.trim === "boolean" ? spec.trim : draft.trim,
		value: text(spec.value, ""),
		pattern: text(spec.pattern, ""),
		flags: text(spec.flags, ""),
		schema: spec.schema === undefined ? "" : JSON.stringify(spec.schema, null, 2),
		expected: text(spec.expected, ""),
		tolerance: text(spec.tolerance, draft.tolerance),
		relativeTolerance: text(spec.relativeTolerance, ""),
		criteria: text(spec.criteria, ""),
		provider: text(spec.provider, draft.provider),
		model: text(spec.model, ""),
		passThreshold: text(spec.passThreshold, draft.passThreshold),
	};
}

/** Text as a number when it reads as one; otherwise the text itself, which the server refuses by name. */
function numberOrText(text: string): number | string {
	const trimmed = text.trim();
	return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

export class ScorerFormError extends Error {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(message);
	}
}

/** The scorer the API takes; optional fields left empty are left out. A schema that is not JSON is refused here, naming the field. */
export function scorerSpecFrom(draft: ScorerDraft, index: number): Record<string, unknown> {
	const spec: Record<string, unknown> = { type: draft.type };
	if (draft.name.trim()) spec.name = draft.name.trim();
	switch (draft.type) {
		case "exact_match":
			return { ...spec, caseSensitive: draft.caseSensitive, trim: draft.trim };
		case "contains":
			return { ...spec, caseSensitive: draft.caseSensitive, ...(draft.value ? { value: draft.value } : {}) };
		case "regex":
			return { ...spec, pattern: draft.pattern, flags: draft.flags.trim() };
		case "json": {
			if (!draft.schema.trim()) return spec;
			try {
				return { ...spec, schema: JSON.parse(draft.schema) as unknown };
			} catch (error) {
				throw new ScorerFormError(`scorers.${index}.schema`, `The schema is not JSON: ${(error as Error).message}`);
			}
		}
		case "numeric":
			return {
				...spec,
				tolerance: numberOrText(draft.tolerance || "0"),
				...(draft.expected.trim() ? { expected: numberOrText(draft.expected) } : {}),
				...(draft.relativeTolerance.trim() ? { relativeTolerance: numberOrText(draft.relativeTolerance) } : {}),
			};
		case "rubric":
			return { ...spec, criteria: draft.criteria, provider: draft.provider, model: draft.model.trim(), passThreshold: numberOrText(draft.passThreshold || "0.5") };
	}
}

/** A scorer in a few words, for the cases table. */
export function describeScorer(spec: Record<string, unknown> & { type: string }): string {
	const label = SCORER_LABELS[spec.type as ScorerType] ?? spec.type;
	const named = typeof spec.name === "string" ? ` “${spec.name}”` : "";
	switch (spec.type) {
		case "contains":
			return `${label}${named}${typeof spec.value === "string" ? `: ${spec.value}` : " the expected output"}`;
		case "regex":
			return `${label}${named}: /${String(spec.pattern)}/${String(spec.flags ?? "")}`;
		case "json":
			return `${label}${named}${spec.schema ? " matching a schema" : ""}`;
		case "numeric":
			return `${label}${named} ± ${String(spec.tolerance ?? 0)}`;
		case "rubric":
			return `${label}${named} by ${String(spec.provider)} ${String(spec.model)}`;
		default:
			return `${label}${named}`;
	}
}
