/**
 * A command's flags as the use case's input: each value converted by its flag's type and placed at
 * its key. Values that cannot be converted (JSON that is not, a file that cannot be read) are a
 * VALIDATION_ERROR naming the flag, like the ones the use case's schema reports.
 */
import { readFile } from "node:fs/promises";
import type { FieldIssue, FlagValue } from "./command-line";
import type { CommandSpec, FlagSpec } from "./command-spec";

/** Refused before anything runs: rendered like the platform's VALIDATION_ERROR (exit 1). */
export class FlagValueError extends Error {
	constructor(readonly fields: FieldIssue[]) {
		super("Request failed validation");
	}
}

export interface CommandInput {
	input: Record<string, unknown>;
	/** Flags given on the command line (not defaulted). */
	given: ReadonlySet<string>;
	/** Every flag's converted value by flag name, defaults included (what `print` reads). */
	values: Record<string, unknown>;
}

export async function buildCommandInput(command: CommandSpec, flags: ReadonlyMap<string, FlagValue>): Promise<CommandInput> {
	const input: Record<string, unknown> = command.base?.() ?? {};
	const values: Record<string, unknown> = {};
	const issues: FieldIssue[] = [];
	for (const spec of command.flags) {
		const raw = flags.get(spec.name) ?? defaultValue(spec);
		if (raw === undefined) continue;
		try {
			const value = await convert(spec, raw);
			values[spec.name] = value;
			if (spec.key !== null) setAt(input, spec.key, value);
		} catch (error) {
			issues.push({ field: `--${spec.name}`, issue: (error as Error).message });
		}
	}
	if (issues.length > 0) throw new FlagValueError(issues);
	const given = new Set(flags.keys());
	return { input: command.assemble ? command.assemble(input, given) : input, given, values };
}

function defaultValue(spec: FlagSpec): FlagValue | undefined {
	if (spec.default === undefined) return undefined;
	return spec.type === "list" ? spec.default.split(",") : spec.default;
}

async function convert(spec: FlagSpec, raw: FlagValue): Promise<unknown> {
	if (typeof raw !== "string") return raw;
	switch (spec.type) {
		case "integer":
		case "number":
			// Left as text when it is no number, so the schema says what it expected of this flag.
			return raw.trim() !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
		case "json": {
			const text = raw.startsWith("@") ? await readText(raw.slice(1)) : raw;
			try {
				return JSON.parse(text);
			} catch {
				throw new Error("Must be JSON");
			}
		}
		case "file":
			return readText(raw);
		default:
			if (spec.readsStdin && raw === "-") return (await readStandardInput()).replace(/\r?\n$/, "");
			return spec.emptyIsNull && raw === "" ? null : raw;
	}
}

async function readText(path: string): Promise<string> {
	try {
		return await readFile(path, "utf8");
	} catch (error) {
		throw new Error(`Cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
	}
}

async function readStandardInput(): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

function setAt(target: Record<string, unknown>, key: string, value: unknown): void {
	const segments = key.split(".");
	let node = target;
	for (const segment of segments.slice(0, -1)) {
		const next = node[segment];
		node = (node[segment] = typeof next === "object" && next !== null ? next : {}) as Record<string, unknown>;
	}
	node[segments[segments.length - 1]] = value;
}
