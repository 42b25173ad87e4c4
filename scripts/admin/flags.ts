/** Command-line flags of the operator CLI, and the error that means "wrong usage" (exit code 2). */
export type Flags = Record<string, string | boolean | undefined>;

export class UsageError extends Error {}

export function required(flags: Flags, name: string): string {
	const value = flags[name];
	if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
	return value;
}

export function optional(flags: Flags, name: string): string | undefined {
	const value = flags[name];
	return typeof value === "string" ? value : undefined;
}
