/**
 * The command line, read against the command table: which command (or help), and each flag's text.
 * Everything checked here is syntax (exit 2 with the relevant usage): the command, flag names,
 * missing values, required flags, one-of sets, and values of flags that list their choices.
 * Everything else is left to the use case's schema, which names the offending flag (exit 1).
 */
import type { CommandSpec, FlagSpec } from "./command-spec";

export interface CommandNode {
	/** Words after `admin`; empty for the root. */
	path: string;
	children: Map<string, CommandNode>;
	command?: CommandSpec;
	/** Reached through an alias: runs, but group help does not list it. */
	alias?: boolean;
	summary: string;
}

export interface FieldIssue {
	field: string;
	issue: string;
}

/** A flag's text as given: a string, the pieces of a list flag, or a boolean. */
export type FlagValue = string | string[] | boolean;

export type ParsedCommandLine = { json: boolean } & (
	| { kind: "help"; node: CommandNode }
	| { kind: "usage-error"; node: CommandNode; message: string; fields?: FieldIssue[] }
	| { kind: "run"; node: CommandNode; command: CommandSpec; values: Map<string, FlagValue> }
);

export const GLOBAL_FLAGS = [
	{ usage: "--json", description: "Print one JSON object on stdout; errors as JSON on stderr (for scripts)" },
	{ usage: "-h, --help", description: "Show help for the command" },
] as const;

export function buildCommandTree(commands: readonly CommandSpec[], groups: Readonly<Record<string, string>>): CommandNode {
	const root: CommandNode = { path: "", children: new Map(), summary: "" };
	const place = (path: string, command: CommandSpec, alias: boolean) => {
		let node = root;
		for (const word of path.split(" ")) {
			let child = node.children.get(word);
			if (!child) {
				const childPath = node.path ? `${node.path} ${word}` : word;
				child = { path: childPath, children: new Map(), summary: groups[childPath] ?? "" };
				node.children.set(word, child);
			}
			node = child;
		}
		if (node.command || node.children.size > 0) throw new Error(`Command table: '${path}' is defined twice or is also a group`);
		Object.assign(node, { command, summary: command.summary, alias });
	};
	for (const command of commands) {
		place(command.path, command, false);
		for (const alias of command.aliases ?? []) place(alias, command, true);
	}
	return root;
}

const RESERVED = new Set(["--json", "--help", "-h"]);

export function parseCommandLine(argv: readonly string[], root: CommandNode): ParsedCommandLine {
	const json = argv.includes("--json");
	let help = argv.includes("--help") || argv.includes("-h");
	const tokens = argv.filter((token) => !RESERVED.has(token));

	const words: string[] = [];
	while (words.length < tokens.length && !tokens[words.length].startsWith("-")) words.push(tokens[words.length]);
	const rest = tokens.slice(words.length);
	if (words[0] === "help") {
		help = true;
		words.shift();
	}

	let node = root;
	let consumed = 0;
	for (const word of words) {
		const child = node.children.get(word);
		if (!child) break;
		node = child;
		consumed++;
	}
	const unknown = words[consumed];
	if (unknown !== undefined) {
		const known = node.command ? [] : [...node.children.keys()];
		const message = node.command
			? `unexpected argument '${unknown}': ${node.path} takes flags only`
			: `unknown command '${unknown}'${node.path ? ` for '${node.path}'` : ""}${suggestion(unknown, known)}`;
		return { json, kind: "usage-error", node, message };
	}
	if (help) return { json, kind: "help", node };
	if (!node.command) return { json, kind: "usage-error", node, message: node.path ? `'${node.path}' needs a command` : "no command given" };
	return { json, ...parseFlags(node, node.command, rest) };
}

function parseFlags(
	node: CommandNode,
	command: CommandSpec,
	tokens: readonly string[],
): { kind: "usage-error"; node: CommandNode; message: string; fields?: FieldIssue[] } | { kind: "run"; node: CommandNode; command: CommandSpec; values: Map<string, FlagValue> } {
	const error = (message: string, fields?: FieldIssue[]) => ({ kind: "usage-error" as const, node, message, ...(fields ? { fields } : {}) });
	const byName = new Map(command.flags.map((spec) => [spec.name, spec]));
	const values = new Map<string, FlagValue>();

	for (let index = 0; index < tokens.length; index++) {
		const token = tokens[index];
		if (!token.startsWith("--") || token === "--") return error(`unexpected argument '${token}'`);
		const equals = token.indexOf("=");
		const name = token.slice(2, equals === -1 ? undefined : equals);
		const inline = equals === -1 ? undefined : token.slice(equals + 1);
		const spec = byName.get(name);
		if (!spec) return error(`unknown flag --${name}${suggestion(name, [...byName.keys()], "--")}`);

		if (spec.type === "boolean") {
			if (inline !== undefined && inline !== "true" && inline !== "false") return error(`--${name} takes no value, or =true or =false`);
			values.set(name, inline !== "false");
			continue;
		}
		let value = inline;
		if (value === undefined) {
			const next = tokens[index + 1];
			// A value that looks like one of this command's flags is a forgotten value; --flag=--text passes one on purpose.
			if (next === undefined || (next.startsWith("--") && byName.has(next.slice(2).split("=")[0]))) return error(`--${name} needs a value (${spec.placeholder})`);
			value = next;
			index++;
		}
		const pieces = spec.type === "list" ? splitList(value) : [value];
		const outside = spec.choices ? pieces.filter((piece) => !spec.choices?.includes(piece)) : [];
		if (outside.length > 0) {
			const issue = `'${outside[0]}' is not one of ${spec.choices?.join(", ")}`;
			return error(`invalid value for --${name}: ${issue}`, [{ field: `--${name}`, issue }]);
		}
		if (spec.type === "list") values.set(name, [...((values.get(name) as string[] | undefined) ?? []), ...pieces]);
		else if (values.has(name)) return error(`--${name} given twice`);
		else values.set(name, value);
	}

	const missing = command.flags.filter((spec) => spec.required && !values.has(spec.name));
	if (missing.length > 0) {
		return error(
			`missing required flag${missing.length > 1 ? "s" : ""}: ${missing.map((spec) => `--${spec.name}`).join(", ")}`,
			missing.map((spec) => ({ field: `--${spec.name}`, issue: "Required" })),
		);
	}
	for (const set of command.oneOf ?? []) {
		const given = set.filter((name) => values.has(name));
		if (given.length !== 1) {
			const names = set.map((name) => `--${name}`).join(", ");
			const issue = given.length === 0 ? `Give one of ${names}` : `Give only one of ${names}`;
			return error(issue.charAt(0).toLowerCase() + issue.slice(1), [{ field: `--${set[0]}`, issue }]);
		}
	}
	return { kind: "run", node, command, values };
}

function splitList(value: string): string[] {
	return value
		.split(",")
		.map((piece) => piece.trim())
		.filter(Boolean);
}

/** "; did you mean X?" for a near miss (a typo, or a prefix). */
function suggestion(given: string, known: readonly string[], prefix = ""): string {
	const near = known.find((candidate) => candidate.startsWith(given) || editDistance(given, candidate) <= Math.max(1, Math.floor(candidate.length / 4)));
	return near ? `; did you mean ${prefix}${near}?` : "";
}

/** Edits between two words, a swap of neighbours counting as one (optimal string alignment). */
function editDistance(a: string, b: string): number {
	const distance = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
	for (let i = 1; i <= a.length; i++) {
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			distance[i][j] = Math.min(distance[i - 1][j] + 1, distance[i][j - 1] + 1, distance[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance[i][j] = Math.min(distance[i][j], distance[i - 2][j - 2] + 1);
		}
	}
	return distance[a.length][b.length];
}

/** The flag a use case's field came from: `target.version` -> `--version`, `scorers.0.type` -> `--scorers[0].type`. */
export function flagForField(command: CommandSpec, field: string, given: ReadonlySet<string> = new Set()): string {
	const segments = field.split(".");
	let best: { spec: FlagSpec; length: number } | undefined;
	for (const spec of command.flags) {
		if (spec.key === null) continue;
		const key = spec.key.split(".");
		const matches = key.length <= segments.length && key.every((segment, index) => segments[index] === segment);
		// Two flags may fill one field (--text or --file): name the one that was given.
		const better = !best || key.length > best.length || (key.length === best.length && given.has(spec.name) && !given.has(best.spec.name));
		if (matches && better) best = { spec, length: key.length };
	}
	if (!best) return field;
	// A list flag's index means nothing to someone who typed a comma-separated value.
	const remainder = best.spec.type === "list" ? [] : segments.slice(best.length);
	return `--${best.spec.name}${remainder.map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`)).join("")}`;
}
