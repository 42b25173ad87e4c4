import type { SpecialUse } from "./special-use-addresses";

/**
 * An outbound call the egress policy refused, before any connection: `host` (as the caller named
 * it) is, or resolves to, `address`, a special-use address that no allow-list entry covers. The
 * message says which setting would allow it, when one can.
 */
export class EgressRefusedError extends Error {
	override readonly name = "EgressRefusedError";
	readonly code = "EGRESS_REFUSED";

	constructor(
		readonly host: string,
		readonly address: string,
		readonly specialUse: SpecialUse,
		/** How an operator could allow it ("the operator can allow it with EGRESS_ALLOW_HOSTS"), if anything can. */
		allowance: string | undefined,
	) {
		const subject = host === address ? address : `${host} resolves to ${address}, which`;
		super(`${subject} is a special-use address (${specialUse.description})${allowance ? `; ${allowance}` : ""}`);
	}
}

/** The refusal anywhere in `error`'s cause chain (fetch and the provider SDKs wrap connection errors once or twice). */
export function findEgressRefusal(error: unknown): EgressRefusedError | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
		if (current instanceof EgressRefusedError) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}
