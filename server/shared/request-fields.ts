import type { ZodError, ZodIssue } from "zod";
import { findUnstorableText, UNSTORABLE_TEXT_ISSUE } from "../../contract/schemas/common";
import type { FieldIssue } from "./app-error";

/** `["messages", 0, "role"]` -> `messages[0].role`; the root is `body` (or the part's name). */
export function formatPath(path: (string | number)[], root: string): string {
	if (path.length === 0) return root;
	return path.reduce<string>((text, segment) => {
		if (typeof segment === "number") return `${text}[${segment}]`;
		return text ? `${text}.${segment}` : segment;
	}, "");
}

function issueText(issue: ZodIssue): string {
	if (issue.code === "invalid_type" && issue.received === "undefined") return "Required";
	return issue.message;
}

/** One FieldIssue per offender; unknown keys are named one by one so a typo is obvious. */
export function zodErrorToFields(error: ZodError, root: string, prefix: (string | number)[] = []): FieldIssue[] {
	const fields: FieldIssue[] = [];
	for (const issue of error.issues) {
		const path = [...prefix, ...issue.path];
		if (issue.code === "unrecognized_keys") {
			for (const key of issue.keys) fields.push({ field: formatPath([...path, key], root), issue: "Unknown field" });
		} else if (issue.code === "invalid_union") {
			// A union's branches each report; the first branch's issues name the field well enough.
			const first = issue.unionErrors[0];
			fields.push(...(first ? zodErrorToFields(first, root, []) : [{ field: formatPath(path, root), issue: issue.message }]));
		} else {
			fields.push({ field: formatPath(path, root), issue: issueText(issue) });
		}
	}
	return fields;
}

/**
 * VALIDATION_ERROR fields for text PostgreSQL cannot store, anywhere in one part of a request
 * (contract/schemas/common.ts, findUnstorableText). The one guard of every surface, run before
 * any schema and before anything runs: the HTTP pipeline on the path, query and body, the MCP
 * layer on a tool's arguments. HTTP headers need no check: Node's parser refuses a NUL in a header
 * (400 through answerClientError) and decodes header bytes as Latin-1, which has no surrogates.
 */
export function unstorableTextFields(value: unknown, root: string): FieldIssue[] {
	return findUnstorableText(value).map((path) => ({ field: formatPath(path, root), issue: UNSTORABLE_TEXT_ISSUE }));
}
