/**
 * What the CLI prints. With --json: one JSON object on stdout, and errors as `{error}` on stderr.
 * Otherwise for people: lists as tables, objects as `key: value` lines (YAML, so nested values
 * and long texts stay readable), errors as `error: …` lines.
 */
import type { CommandNode, FieldIssue } from "./command-line";
import type { CommandSpec } from "./command-spec";
import { renderHelp } from "./help";

export interface Failure {
	code: string;
	message: string;
	fields?: FieldIssue[];
}

export async function printResult(command: CommandSpec, result: unknown, values: Record<string, unknown>, json: boolean): Promise<void> {
	const record = (typeof result === "object" && result !== null ? result : { result }) as Record<string, unknown>;
	if (command.print?.(record, values, json)) return;
	if (json) {
		process.stdout.write(`${JSON.stringify(result)}\n`);
		return;
	}
	const list = command.table ? record[command.table.list] : undefined;
	if (command.table && Array.isArray(list)) {
		process.stdout.write(list.length === 0 ? `${command.table.empty}\n` : renderTable(list as Record<string, unknown>[], command.table.columns));
		if (typeof record.nextCursor === "string") process.stderr.write(`More: add --cursor ${record.nextCursor}\n`);
		if (typeof record.nextBefore === "string") process.stderr.write(`More: add --before ${record.nextBefore}\n`);
	} else {
		const { stringify } = await import("yaml");
		process.stdout.write(stringify(record, { lineWidth: 0 }));
	}
	if (command.notice) process.stderr.write(`${command.notice}\n`);
}

/** Wrong usage: the message and the relevant usage, on stderr (exit 2). */
export function printUsageError(node: CommandNode, message: string, fields: FieldIssue[] | undefined, json: boolean): void {
	const usage = renderHelp(node);
	if (json) process.stderr.write(`${JSON.stringify({ error: { code: "USAGE", message, ...(fields ? { fields } : {}), usage } })}\n`);
	else process.stderr.write(`error: ${message}\n\n${usage}`);
}

/** A refused or failed operation (exit 1). */
export function printFailure(failure: Failure, json: boolean, helpHint?: string): void {
	if (json) {
		process.stderr.write(`${JSON.stringify({ error: failure })}\n`);
		return;
	}
	const lines = [`error: ${failure.code === "VALIDATION_ERROR" ? "" : `${failure.code}: `}${failure.message}`];
	for (const field of failure.fields ?? []) lines.push(`  ${field.field}: ${field.issue}`);
	if (helpHint && failure.code === "VALIDATION_ERROR") lines.push(`Run '${helpHint}' for usage.`);
	process.stderr.write(`${lines.join("\n")}\n`);
}

const CELL_WIDTH = 60;

function renderTable(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
	const header = columns.map((column) => heading(column));
	const cells = rows.map((row) => columns.map((column) => cell(valueAt(row, column))));
	const widths = header.map((title, index) => Math.max(title.length, ...cells.map((line) => line[index].length)));
	return [header, ...cells].map((line) => line.map((text, index) => (index === line.length - 1 ? text : text.padEnd(widths[index]))).join("  ").trimEnd()).join("\n") + "\n";
}

/** `aggregates.passRate` -> `PASS RATE`. */
function heading(column: string): string {
	const last = column.split(".").pop() ?? column;
	return last.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toUpperCase();
}

function valueAt(row: Record<string, unknown>, path: string): unknown {
	return path.split(".").reduce<unknown>((value, segment) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[segment] : undefined), row);
}

function cell(value: unknown): string {
	let text: string;
	if (value === null || value === undefined || value === "") text = "-";
	else if (Array.isArray(value)) text = value.map((item) => (typeof item === "object" ? JSON.stringify(item) : String(item))).join(",") || "-";
	else if (typeof value === "object") text = Object.values(value).filter((item) => item !== null && item !== undefined).join(" ");
	else text = String(value);
	text = text.replace(/\s+/g, " ");
	return text.length > CELL_WIDTH ? `${text.slice(0, CELL_WIDTH - 1)}…` : text;
}
