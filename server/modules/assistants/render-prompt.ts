import type { PromptVariable } from "../../db/entities";
import { AppError, type FieldIssue } from "../../shared/app-error";

export type VariableValue = string | number | boolean;

/**
 * Checks the caller's variables against the version's declarations (every offender named as
 * `variables.<name>`), applies defaults, and returns the values to substitute.
 */
export function resolveVariables(declared: PromptVariable[], given: Record<string, VariableValue> = {}): Record<string, VariableValue> {
	const issues: FieldIssue[] = [];
	const byName = new Map(declared.map((variable) => [variable.name, variable]));
	for (const name of Object.keys(given)) {
		if (!byName.has(name)) issues.push({ field: `variables.${name}`, issue: "Not declared by the deployed version" });
	}
	const values: Record<string, VariableValue> = {};
	for (const variable of declared) {
		const value = given[variable.name];
		if (value === undefined) {
			if (variable.default !== undefined) values[variable.name] = variable.default;
			else if (variable.required) issues.push({ field: `variables.${variable.name}`, issue: "Required" });
			continue;
		}
		if (typeof value !== variable.type) {
			issues.push({ field: `variables.${variable.name}`, issue: `Expected a ${variable.type}, got a ${typeof value}` });
			continue;
		}
		values[variable.name] = value;
	}
	if (issues.length > 0) throw AppError.validation(issues, "Variables do not match the deployed version");
	return values;
}

/** `{{name}}` (spaces allowed inside the braces); optional variables without a value become empty. */
export function renderPromptTemplate(template: string, values: Record<string, VariableValue>, declared: PromptVariable[]): string {
	const known = new Set(declared.map((variable) => variable.name));
	return template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (placeholder, name: string) => {
		if (name in values) return String(values[name]);
		return known.has(name) ? "" : placeholder;
	});
}
