/**
 * Cases from a file, read in the browser before anything is sent: JSON Lines (one case object per
 * line, the fields of the add-case form) or CSV with a header row (`input`, and optionally
 * `expectedOutput`, `scorer` (a type needing no settings) or `scorers` (a JSON array)). Every line
 * that cannot become a case is named with its reason; the others go through the add-case route.
 */
export interface ParsedCase {
	line: number;
	body: Record<string, unknown>;
}
export interface LineIssue {
	line: number;
	message: string;
}
export interface ParsedFile {
	cases: ParsedCase[];
	issues: LineIssue[];
}

/** A file's bounds: one dataset holds at most 1,000 cases, and a page must stay responsive. */
export const IMPORT_LIMITS = { bytes: 5_000_000, cases: 1_000 };

const SETTINGLESS_SCORERS = ["exact_match", "contains", "json", "numeric"];
const CASE_FIELDS = ["input", "messages", "variables", "expectedOutput", "scorers"];

export function parseCasesFile(name: string, text: string): ParsedFile {
	const result = /\.csv$/i.test(name) ? parseCsvCases(text) : parseJsonLines(text);
	if (result.cases.length > IMPORT_LIMITS.cases) {
		return { cases: [], issues: [...result.issues, { line: 0, message: `The file holds ${result.cases.length} cases; a dataset holds at most ${IMPORT_LIMITS.cases}` }] };
	}
	return result;
}

function parseJsonLines(text: string): ParsedFile {
	const cases: ParsedCase[] = [];
	const issues: LineIssue[] = [];
	text.split(/\r?\n/).forEach((raw, index) => {
		const line = index + 1;
		if (!raw.trim()) return;
		let value: unknown;
		try {
			value = JSON.parse(raw);
		} catch (error) {
			issues.push({ line, message: `Not JSON: ${(error as Error).message}` });
			return;
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			issues.push({ line, message: "Not an object: each line is one case, {\"input\": …, \"scorers\": […]}" });
			return;
		}
		const unknown = Object.keys(value).filter((key) => !CASE_FIELDS.includes(key));
		if (unknown.length > 0) {
			issues.push({ line, message: `Unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => `'${key}'`).join(", ")}: a case has ${CASE_FIELDS.join(", ")}` });
			return;
		}
		const body = value as Record<string, unknown>;
		if (body.scorers === undefined) {
			issues.push({ line, message: "No scorers: give at least one, e.g. [{\"type\": \"exact_match\"}]" });
			return;
		}
		cases.push({ line, body });
	});
	return { cases, issues };
}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. Each record keeps the line it starts on. */
export function parseCsvRecords(text: string): { line: number; fields: string[] }[] | LineIssue {
	const records: { line: number; fields: string[] }[] = [];
	let fields: string[] = [];
	let field = "";
	let quoted = false;
	let line = 1;
	let recordLine = 1;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (quoted) {
			if (char === '"' && text[index + 1] === '"') {
				field += '"';
				index++;
			} else if (char === '"') quoted = false;
			else {
				if (char === "\n") line++;
				field += char;
			}
		} else if (char === '"' && field === "") quoted = true;
		else if (char === ",") {
			fields.push(field);
			field = "";
		} else if (char === "\n" || char === "\r") {
			if (char === "\r" && text[index + 1] === "\n") index++;
			fields.push(field);
			if (fields.length > 1 || fields[0] !== "") records.push({ line: recordLine, fields });
			fields = [];
			field = "";
			line++;
			recordLine = line;
		} else field += char;
	}
	if (quoted) return { line: recordLine, message: "A quoted field is never closed" };
	fields.push(field);
	if (fields.length > 1 || fields[0] !== "") records.push({ line: recordLine, fields });
	return records;
}

function parseCsvCases(text: string): ParsedFile {
	const records = parseCsvRecords(text.replace(/^\uFEFF/, ""));
	if (!Array.isArray(records)) return { cases: [], issues: [records] };
	const [header, ...rows] = records;
	if (!header) return { cases: [], issues: [{ line: 1, message: "The file is empty" }] };
	const columns = header.fields.map((name) => name.trim());
	const column = (names: string[]) => columns.findIndex((name) => names.includes(name));
	const at = { input: column(["input"]), expected: column(["expectedOutput", "expected_output", "expected"]), scorer: column(["scorer"]), scorers: column(["scorers"]) };
	if (at.input < 0) return { cases: [], issues: [{ line: header.line, message: "The header row has no 'input' column" }] };
	const cases: ParsedCase[] = [];
	const issues: LineIssue[] = [];
	for (const { line, fields } of rows) {
		if (fields.length !== columns.length) {
			issues.push({ line, message: `${fields.length} fields where the header has ${columns.length}` });
			continue;
		}
		const input = fields[at.input];
		const expected = at.expected >= 0 && fields[at.expected] !== "" ? fields[at.expected] : undefined;
		let scorers: unknown;
		if (at.scorers >= 0 && fields[at.scorers].trim()) {
			try {
				scorers = JSON.parse(fields[at.scorers]);
			} catch (error) {
				issues.push({ line, message: `'scorers' is not JSON: ${(error as Error).message}` });
				continue;
			}
		} else {
			const type = at.scorer >= 0 && fields[at.scorer].trim() ? fields[at.scorer].trim() : expected !== undefined ? "exact_match" : "";
			if (!type) {
				issues.push({ line, message: "No scorer: give a 'scorer' column, a 'scorers' column, or an expected output (scored by exact match)" });
				continue;
			}
			if (!SETTINGLESS_SCORERS.includes(type)) {
				issues.push({ line, message: `The scorer '${type}' needs settings: give it in a 'scorers' column as JSON (the 'scorer' column takes ${SETTINGLESS_SCORERS.join(", ")})` });
				continue;
			}
			scorers = [{ type }];
		}
		cases.push({ line, body: { input, ...(expected !== undefined ? { expectedOutput: expected } : {}), scorers } });
	}
	return { cases, issues };
}
