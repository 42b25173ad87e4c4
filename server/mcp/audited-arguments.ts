const REDACTED = "[redacted]";
const MAX_AUDITED_STRING = 500;
const MAX_AUDITED_KEY = 100;
const MAX_AUDITED_TOOL_NAME = 100;
/** Array items and object members kept per level. */
const MAX_MEMBERS = 50;

/**
 * Tool arguments as the audit log keeps them: secrets (a provider key, a password) replaced, long
 * texts (a document added inline) and long names cut, so the log stays readable and never holds a
 * credential. Text PostgreSQL cannot store is replaced when the row is written (recordAuditEvent).
 */
export function auditedArguments(input: Record<string, unknown>, secretArguments: readonly string[]): Record<string, unknown> {
	return firstMembers(input, (name, value) => (secretArguments.includes(name) ? REDACTED : shorten(value, 0)));
}

/**
 * The first MAX_MEMBERS members of `value`, each mapped, keys cut. Read with for…in, which stops
 * there: a refused call's arguments may hold a hundred thousand members, and none is copied.
 */
function firstMembers(value: object, map: (key: string, item: unknown) => unknown): Record<string, unknown> {
	const kept: [string, unknown][] = [];
	for (const key in value) {
		if (kept.length === MAX_MEMBERS) break;
		kept.push([shortenKey(key), map(key, (value as Record<string, unknown>)[key])]);
	}
	// fromEntries defines each key as an own property, "__proto__" included.
	return Object.fromEntries(kept);
}

/** A tool name as sent, cut: an unknown one is the caller's text. */
export function auditedToolName(name: string): string {
	return name.length > MAX_AUDITED_TOOL_NAME ? `${name.slice(0, MAX_AUDITED_TOOL_NAME)}…` : name;
}

function shortenKey(key: string): string {
	return key.length > MAX_AUDITED_KEY ? `${key.slice(0, MAX_AUDITED_KEY)}…` : key;
}

function shorten(value: unknown, depth: number): unknown {
	if (typeof value === "string") return value.length > MAX_AUDITED_STRING ? `${value.slice(0, MAX_AUDITED_STRING)}… (${value.length} characters)` : value;
	if (value === null || typeof value !== "object") return value;
	if (depth >= 4) return "…";
	if (Array.isArray(value)) return value.slice(0, MAX_MEMBERS).map((item) => shorten(item, depth + 1));
	return firstMembers(value, (_key, item) => shorten(item, depth + 1));
}
