import type { AssistantConfig } from "./assistant-queries";

/**
 * The draft editor's state: the configuration as the form holds it (numbers as the text typed),
 * and back. Fields the form has no input for (a newer server's additions, such as tools) travel in
 * `otherJson`, shown and edited as JSON, so nothing the configuration holds is hidden or lost.
 */
export type VariableType = "string" | "number" | "boolean";

export interface VariableRow {
	key: string;
	name: string;
	type: VariableType;
	required: boolean;
	/** As typed; "" is no default. Booleans: "", "true" or "false". */
	defaultText: string;
	description: string;
}

export interface KnowledgeRow {
	key: string;
	sourceId: string;
	topK: string;
	minScore: string;
}

export interface GenerationFields {
	temperature: string;
	maxOutputTokens: string;
	responseFormat: "" | "text" | "json";
	timeoutMs: string;
	maxRetries: string;
}

export interface EditorState {
	provider: string;
	model: string;
	systemPrompt: string;
	variables: VariableRow[];
	generation: GenerationFields;
	knowledge: KnowledgeRow[];
	otherJson: string;
}

const FORM_FIELDS = new Set(["provider", "model", "systemPrompt", "variables", "generation", "knowledge"]);
const GENERATION_FORM_FIELDS = new Set(["temperature", "maxOutputTokens", "responseFormat", "timeoutMs", "maxRetries"]);

/** A React key for a row the person adds or removes (crypto.randomUUID needs a secure context, which plain-http installations are not). */
export function newRowKey(): string {
	return `row-${Math.random().toString(36).slice(2)}`;
}

const text = (value: unknown) => (value === undefined || value === null ? "" : String(value));

/** The configuration's fields without a form, as pretty JSON ("{}" when there are none). */
function otherFieldsOf(config: Record<string, unknown>): Record<string, unknown> {
	const other: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(config)) if (!FORM_FIELDS.has(key)) other[key] = value;
	const generation = (config.generation ?? {}) as Record<string, unknown>;
	const otherGeneration = Object.fromEntries(Object.entries(generation).filter(([key]) => !GENERATION_FORM_FIELDS.has(key)));
	if (Object.keys(otherGeneration).length > 0) other.generation = otherGeneration;
	return other;
}

export function stateFromConfig(config: AssistantConfig): EditorState {
	const generation = config.generation ?? {};
	return {
		provider: config.provider,
		model: config.model,
		systemPrompt: config.systemPrompt,
		variables: config.variables.map((variable) => ({
			key: newRowKey(),
			name: variable.name,
			type: variable.type,
			required: variable.required ?? false,
			defaultText: text(variable.default),
			description: variable.description ?? "",
		})),
		generation: {
			temperature: text(generation.temperature),
			maxOutputTokens: text(generation.maxOutputTokens),
			responseFormat: generation.responseFormat ?? "",
			timeoutMs: text(generation.timeoutMs),
			maxRetries: text(generation.maxRetries),
		},
		knowledge: config.knowledge.map((attached) => ({ key: newRowKey(), sourceId: attached.sourceId, topK: String(attached.topK), minScore: text(attached.minScore) })),
		otherJson: JSON.stringify(otherFieldsOf(config as unknown as Record<string, unknown>), null, 2),
	};
}

/** The state without row keys: two states that would save the same configuration compare equal. */
export function comparable(state: EditorState): string {
	return JSON.stringify({
		...state,
		variables: state.variables.map(({ key: _key, ...row }) => row),
		knowledge: state.knowledge.map(({ key: _key, ...row }) => row),
		otherJson: normalizedJson(state.otherJson),
	});
}

function normalizedJson(value: string): string {
	try {
		return JSON.stringify(JSON.parse(value));
	} catch {
		return value;
	}
}

/** Issues found before anything is sent, by the same field paths the server names (see fieldKey). */
export type LocalIssues = Record<string, string>;

function numberFrom(value: string, path: string, issues: LocalIssues): number | undefined {
	const trimmed = value.trim();
	if (trimmed === "") return undefined;
	const parsed = Number(trimmed);
	if (!Number.isFinite(parsed)) {
		issues[path] = "Enter a number";
		return undefined;
	}
	return parsed;
}

function defaultOf(row: VariableRow, index: number, issues: LocalIssues): string | number | boolean | undefined {
	if (row.defaultText === "") return undefined;
	if (row.type === "boolean") return row.defaultText === "true";
	if (row.type === "number") return numberFrom(row.defaultText, `variables.${index}.default`, issues);
	return row.defaultText;
}

/** The whole configuration the form describes, as the patch to save (every field replaced whole). */
export function patchFromState(state: EditorState): { patch: Record<string, unknown>; issues: LocalIssues } {
	const issues: LocalIssues = {};
	let other: Record<string, unknown> = {};
	try {
		const parsed: unknown = JSON.parse(state.otherJson.trim() === "" ? "{}" : state.otherJson);
		if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) issues.otherJson = "Enter a JSON object, e.g. {}";
		else other = parsed as Record<string, unknown>;
	} catch (error) {
		issues.otherJson = `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
	}
	const { generation: otherGeneration, ...otherTop } = other;
	const generation: Record<string, unknown> = {
		...(typeof otherGeneration === "object" && otherGeneration !== null ? (otherGeneration as Record<string, unknown>) : {}),
	};
	const setNumber = (key: keyof GenerationFields) => {
		const value = numberFrom(state.generation[key], `generation.${key}`, issues);
		if (value !== undefined) generation[key] = value;
	};
	setNumber("temperature");
	setNumber("maxOutputTokens");
	setNumber("timeoutMs");
	setNumber("maxRetries");
	if (state.generation.responseFormat) generation.responseFormat = state.generation.responseFormat;
	const patch: Record<string, unknown> = {
		...otherTop,
		provider: state.provider,
		model: state.model.trim(),
		systemPrompt: state.systemPrompt,
		variables: state.variables.map((row, index) => {
			const value = defaultOf(row, index, issues);
			return {
				name: row.name.trim(),
				type: row.type,
				required: row.required,
				...(value === undefined ? {} : { default: value }),
				...(row.description.trim() ? { description: row.description.trim() } : {}),
			};
		}),
		generation,
		knowledge: state.knowledge.map((row, index) => {
			const topK = numberFrom(row.topK, `knowledge.${index}.topK`, issues);
			const minScore = numberFrom(row.minScore, `knowledge.${index}.minScore`, issues);
			if (row.topK.trim() === "") issues[`knowledge.${index}.topK`] = "Required";
			return { sourceId: row.sourceId, topK: topK ?? 0, ...(minScore === undefined ? {} : { minScore }) };
		}),
	};
	return { patch, issues };
}

/**
 * A server field path as the form knows it: `patch.variables[0].default` (the request's schema),
 * `config.variables.0.default` (the whole configuration checked after merging) and
 * `variables.0.default` all name the same input.
 */
export function fieldKey(field: string): string {
	return field
		.replace(/\[(\d+)\]/g, ".$1")
		.replace(/^(body\.)?(patch\.|config\.)?/, "");
}

/** `{{ name }}` placeholders, exactly as the server substitutes them (render-prompt.ts). */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export function placeholdersIn(prompt: string): string[] {
	return [...new Set([...prompt.matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

/** A variable name from a prompt placeholder, as a new row. */
export function variableRow(name: string): VariableRow {
	return { key: newRowKey(), name, type: "string", required: false, defaultText: "", description: "" };
}
