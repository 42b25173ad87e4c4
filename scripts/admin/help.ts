/** Plain-text help for the root, a group or a command, built from the command table. */
import { type CommandNode, GLOBAL_FLAGS } from "./command-line";
import type { CommandSpec, FlagSpec } from "./command-spec";

const PROGRAM = "admin";
const WIDTH = 100;

export function renderHelp(node: CommandNode): string {
	if (node.command) return renderCommandHelp(node.command, node.alias ? node.path : undefined);
	return node.path ? renderGroupHelp(node) : renderRootHelp(node);
}

function renderRootHelp(root: CommandNode): string {
	return [
		"Operator CLI of the platform: every operation of the MCP tools, and the operator's own (bootstrap,",
		"users, signing keys), as the operator, who acts on every organization. It opens the server's database",
		"with its SECRET_KEY, so it is safe to use while the server runs.",
		"",
		"Usage:",
		`  npm run --silent ${PROGRAM} -- <command> [flags]`,
		`  (below, '${PROGRAM}' stands for 'npm run --silent ${PROGRAM} --')`,
		"",
		"Commands:",
		...columns([...root.children.values()].filter((child) => !child.alias).map((child) => [child.path, child.summary] as const)),
		"",
		"Global flags:",
		...columns(GLOBAL_FLAGS.map((flag) => [flag.usage, flag.description] as const)),
		"",
		"Examples:",
		`  ${PROGRAM} bootstrap --organization Acme --workspace Main --email you@example.com --password '…'`,
		`  ${PROGRAM} provider-credential set --workspace ws_… --provider openai --api-key -   # key from stdin`,
		`  ${PROGRAM} assistant list --workspace ws_…`,
		`  ${PROGRAM} environment create --workspace ws_… --slug staging --name Staging`,
		`  ${PROGRAM} trace list --workspace ws_… --failed --json`,
		"",
		`Run '${PROGRAM} <command> --help' (or '${PROGRAM} help <command>') for a command's flags.`,
		"",
	].join("\n");
}

function renderGroupHelp(group: CommandNode): string {
	const leaves = (node: CommandNode): CommandNode[] => (node.command ? (node.alias ? [] : [node]) : [...node.children.values()].flatMap(leaves));
	return [
		group.summary,
		"",
		"Usage:",
		`  ${PROGRAM} ${group.path} <command> [flags]`,
		"",
		"Commands:",
		...columns(leaves(group).map((leaf) => [leaf.path.slice(group.path.length + 1), leaf.summary] as const)),
		"",
		"Global flags:",
		...columns(GLOBAL_FLAGS.map((flag) => [flag.usage, flag.description] as const)),
		"",
		`Run '${PROGRAM} ${group.path} <command> --help' for a command's flags.`,
		"",
	].join("\n");
}

function renderCommandHelp(command: CommandSpec, calledAs?: string): string {
	const inOneOf = new Set((command.oneOf ?? []).flat());
	const required = command.flags.filter((flag) => flag.required);
	const optional = command.flags.filter((flag) => !flag.required && !inOneOf.has(flag.name));
	// One first column for every section, so the descriptions line up.
	const left = leftColumn([...command.flags.map(flagUsage), ...GLOBAL_FLAGS.map((flag) => flag.usage)]);
	const lines = [command.summary + "."];
	if (command.details) lines.push("", ...wrap(command.details, WIDTH));
	lines.push("", "Usage:", ...usageLines(command, calledAs ?? command.path));
	if (required.length > 0) lines.push("", "Required flags:", ...flagLines(required, left));
	for (const set of command.oneOf ?? []) {
		lines.push("", "Exactly one of:", ...flagLines(set.map((name) => command.flags.find((flag) => flag.name === name) as FlagSpec), left));
	}
	if (optional.length > 0) lines.push("", "Optional flags:", ...flagLines(optional, left));
	lines.push("", "Global flags:", ...columns(GLOBAL_FLAGS.map((flag) => [flag.usage, flag.description] as const), left));
	const notes = [
		command.tool ? `Same operation as the MCP tool ${command.tool}.` : "No MCP tool does this.",
		calledAs ? `Now named: ${PROGRAM} ${command.path}.` : command.aliases?.length ? `Also runs as: ${command.aliases.map((alias) => `${PROGRAM} ${alias}`).join(", ")}.` : "",
	].filter(Boolean);
	lines.push("", ...notes, "");
	return lines.join("\n");
}

function flagUsage(flag: FlagSpec): string {
	return flag.type === "boolean" ? `--${flag.name}` : `--${flag.name} ${flag.placeholder}`;
}

/** `admin x y --a ID (--b T | --c J) [--d N]`, wrapped under the command. */
function usageLines(command: CommandSpec, path: string): string[] {
	const inOneOf = new Set((command.oneOf ?? []).flat());
	const byName = new Map(command.flags.map((flag) => [flag.name, flag]));
	const parts = [
		...command.flags.filter((flag) => flag.required).map(flagUsage),
		...(command.oneOf ?? []).map((set) => `(${set.map((name) => flagUsage(byName.get(name) as FlagSpec)).join(" | ")})`),
		...command.flags.filter((flag) => !flag.required && !inOneOf.has(flag.name)).map((flag) => `[${flagUsage(flag)}]`),
	];
	const lines: string[] = [];
	let line = `  ${PROGRAM} ${path}`;
	for (const part of parts) {
		if (line.length + part.length + 1 > WIDTH) {
			lines.push(line);
			line = " ".repeat(PROGRAM.length + path.length + 3);
		}
		line += ` ${part}`;
	}
	return [...lines, line];
}

function flagLines(flags: readonly FlagSpec[], left: number): string[] {
	return columns(
		flags.map((flag) => {
			const extras = [
				flag.default !== undefined ? `default: ${flag.default}` : "",
				flag.type === "json" ? "JSON or @file" : "",
				flag.type === "list" ? "comma-separated" : "",
			].filter(Boolean);
			return [flagUsage(flag), `${flag.description}${extras.length ? ` (${extras.join("; ")})` : ""}`] as const;
		}),
		left,
	);
}

/** Two columns, the second wrapped to the width; a name too long for the first column gets a line of its own. */
function columns(rows: readonly (readonly [string, string])[], left = leftColumn(rows.map(([name]) => name))): string[] {
	return rows.flatMap(([name, text]) => {
		const wrapped = wrap(text, WIDTH - left - 2);
		if (name.length + 2 > left) return [`  ${name}`, ...wrapped.map((part) => `  ${" ".repeat(left)}${part}`)];
		return wrapped.map((part, index) => `  ${(index === 0 ? name : "").padEnd(left)}${part}`);
	});
}

function leftColumn(names: readonly string[]): number {
	return Math.max(0, ...names.map((name) => name.length).filter((length) => length <= 30)) + 2;
}

function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = "";
	for (const word of text.split(/\s+/).filter(Boolean)) {
		if (line && line.length + word.length + 1 > width) {
			lines.push(line);
			line = word;
		} else line = line ? `${line} ${word}` : word;
	}
	return line ? [...lines, line] : [""];
}
