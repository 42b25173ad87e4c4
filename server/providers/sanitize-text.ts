/** ES2024's String.prototype well-formedness methods (Node 20+), not in the ES2023 library this project compiles against. */
type WellFormedText = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Provider text as PostgreSQL can store it (traces are jsonb and text): NUL removed, unpaired
 * UTF-16 surrogates replaced with U+FFFD. Clients get the same text the trace records. Both checks
 * are native scans, so well-formed text costs next to nothing.
 */
export function sanitizeProviderText(text: string): string {
	const withoutNul = text.includes("\0") ? text.replaceAll("\0", "") : text;
	return (withoutNul as WellFormedText).isWellFormed() ? withoutNul : (withoutNul as WellFormedText).toWellFormed();
}

/**
 * sanitizeProviderText for a stream of deltas: a high surrogate that ends one delta is held back
 * until the next, since the pair may straddle two chunks; flush() at the end of the stream.
 */
export class StreamTextSanitizer {
	private heldBack = "";

	push(delta: string): string {
		let text = this.heldBack ? this.heldBack + delta : delta;
		this.heldBack = "";
		const last = text.charCodeAt(text.length - 1);
		if (last >= 0xd800 && last <= 0xdbff) {
			this.heldBack = text.slice(-1);
			text = text.slice(0, -1);
		}
		return sanitizeProviderText(text);
	}

	/** What is still held back: a surrogate whose pair never came, as U+FFFD. */
	flush(): string {
		const rest = this.heldBack;
		this.heldBack = "";
		return rest ? "\ufffd" : "";
	}
}
