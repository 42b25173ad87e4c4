const REDACTED = "[redacted]";
const MAX_AUDITED_STRING = 500;
const MAX_AUDITED_KEY = 100;
const MAX_AUDITED_TOOL_NAME = 100;

/**
 * Tool arguments as the audit log keeps them: secrets (a provider key, a password) replaced, long
 * texts (a document added inline) and long names cut, so the log stays readable and never holds a
 * credential. Text PostgreSQL cannot store is replaced when the row is written (recordAuditEvent).
 */
export function auditedArguments(input: Record<string, unknown>, secretArguments: readonly string[]): Record<string, unknown> {
	const audited: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(input).slice(0, 50)) audited[shortenKey(name)] = secretArguments.includes(name) ? REDACTED : shorten(value, 0);
	return audited;
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
	if (Array.isArray(value)) return value.slice(0, 50).map((item) => shorten(item, depth + 1));
	return Object.fromEntries(
		Object.entries(value)
			.slice(0, 50)
			.map(([key, item]) => [shortenKey(key), shorten(item, depth + 1)]),
	);
}
