/**
 * The operator CLI's command table: one row per command, from which the parser, the help text and
 * the MCP parity test are all derived. A row names the MCP tool it mirrors (the CLI then validates
 * with that tool's input schema and runs its adapter, so both transports call the same use case
 * with the same input) or, for operator-only commands, the use case it calls.
 *
 * This module and the rows import nothing heavy: help and usage errors answer without loading the
 * database layer (scripts/admin/operations.ts is loaded only to run a command).
 */
import type { OperatorUseCase } from "./operations";

/** How a flag's text becomes an input value. Conversions that fail are named by the use case's schema. */
export type FlagType =
	/** Text as given. */
	| "string"
	/** A whole number (left as text when it is not one, so the schema names the flag). */
	| "integer"
	| "number"
	/** Present: true; `--flag=false`: false. */
	| "boolean"
	/** JSON text, or `@path` to read it from a file. */
	| "json"
	/** Comma-separated, and the flag may be repeated. */
	| "list"
	/** A path: the file's text is the value. */
	| "file";

export interface FlagSpec {
	/** Without the dashes: `workspace` is `--workspace`. */
	name: string;
	/**
	 * Where the value goes in the use case's input, dotted for nested fields (`patch.model`,
	 * `target.version`); null for flags the row's `assemble` or `print` reads itself.
	 */
	key: string | null;
	type: FlagType;
	/** Placeholder in usage lines: ID, SLUG, TEXT, JSON, N. */
	placeholder: string;
	description: string;
	required: boolean;
	/** Applied when the flag is left out, and shown in help. */
	default?: string;
	/** The only values accepted (checked before anything runs, like a subcommand). */
	choices?: readonly string[];
	/** An empty value means null (clears a nullable field). */
	emptyIsNull?: boolean;
	/** `-` reads the value from standard input (secrets kept out of shell history and process lists). */
	readsStdin?: boolean;
}

/** Options for a flag; name, type and description are positional in the helpers below. */
export type FlagOptions = Partial<Omit<FlagSpec, "name" | "description" | "type">>;

export interface CommandSpec {
	/** Words after `admin`: `assistant version list`. */
	path: string;
	/** Other paths that run this command (earlier names kept working); not listed in group help. */
	aliases?: readonly string[];
	/** One line for command lists. */
	summary: string;
	/** More, for the command's own help. */
	details?: string;
	/** The MCP tool this command mirrors; it runs that tool's adapter unless `useCase` is given. */
	tool?: string;
	/** Operator-only commands, and mirrored tools not in the registry yet: the use case to call. */
	useCase?: OperatorUseCase;
	flags: readonly FlagSpec[];
	/** Sets of flags of which exactly one must be given, e.g. `(--input TEXT | --messages JSON)`. */
	oneOf?: readonly (readonly string[])[];
	/** Input fields the operator may leave out although the tool's schema requires them (the operator acts on any workspace). */
	operatorOptional?: readonly string[];
	/** Input present before flags are applied (e.g. an empty patch). */
	base?: () => Record<string, unknown>;
	/** Final touches on the input from the flags as given (a union's `kind`, a converted choice). */
	assemble?: (input: Record<string, unknown>, given: ReadonlySet<string>) => Record<string, unknown>;
	/** Readable output: a table of the list under `list` with these columns. */
	table?: { list: string; columns: readonly string[]; empty: string };
	/** Printed to stderr after a readable answer: what to do next, or a warning. */
	notice?: string;
	/** Output of its own (and side effects such as writing a file); false: the default printing follows. */
	print?: (result: Record<string, unknown>, values: Record<string, unknown>, json: boolean) => boolean;
}

const PLACEHOLDERS: Record<FlagType, string> = { string: "TEXT", integer: "N", number: "X", boolean: "", json: "JSON", list: "A,B", file: "PATH" };

export function flag(name: string, type: FlagType, description: string, options: FlagOptions = {}): FlagSpec {
	return {
		name,
		key: options.key === undefined ? camelCase(name) : options.key,
		type,
		placeholder: options.placeholder ?? (options.choices ? options.choices.join("|") : PLACEHOLDERS[type]),
		description,
		required: options.required ?? false,
		...(options.default !== undefined ? { default: options.default } : {}),
		...(options.choices ? { choices: options.choices } : {}),
		...(options.emptyIsNull ? { emptyIsNull: true } : {}),
		...(options.readsStdin ? { readsStdin: true } : {}),
	};
}

export function camelCase(name: string): string {
	return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Flags most commands share. */
export const workspaceFlag = flag("workspace", "string", "The workspace (ids: admin workspace list)", { key: "workspaceId", placeholder: "ID", required: true });
export const organizationFlag = flag("organization", "string", "The organization (ids: admin organization list)", { key: "organizationId", placeholder: "ID", required: true });
export const assistantSlugFlag = flag("slug", "string", "The assistant's slug (admin assistant list)", { placeholder: "SLUG", required: true });
export const limitFlag = (defaultValue: string, key = "limit") => flag("limit", "integer", "Page size, 1 to 100", { key, default: defaultValue });
export const cursorFlag = flag("cursor", "string", "nextCursor of the previous page", { placeholder: "CURSOR" });

/** The provider lists, spelled out so help loads nothing; the parity test checks them against the tools' schemas. */
export const PROVIDER_CHOICES = ["openai", "mistral", "openai-compatible"] as const;
export const MEMBER_ROLE_CHOICES = ["owner", "admin", "member", "viewer"] as const;
export const API_KEY_SCOPE_CHOICES = ["runtime:execute", "knowledge:read", "knowledge:write"] as const;
