/** What stands for a secret's value wherever a text could have carried it. */
export const REDACTED = "[redacted]";

/**
 * Replaces every secret value in `text`: tool results, errors and arguments go to the model, the
 * caller and the trace, and an API may echo back the header it was sent.
 */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
	let redacted = text;
	for (const value of secrets) {
		// Too short to be told from ordinary text; such a value would be replaced everywhere.
		if (value.length < 4) continue;
		redacted = redacted.split(value).join(REDACTED);
	}
	return redacted;
}
