import { isStorableText } from "../../contract/schemas/common";

/** ES2024's String.prototype.toWellFormed (Node 20+), not in the ES2023 library this project compiles against. */
type WellFormedText = string & { toWellFormed(): string };

const REPLACEMENT_CHARACTER = "\ufffd";
/** Deeper than this, a value is not copied but summarised: what is stored stays bounded whatever was sent. */
const MAX_DEPTH = 16;

/**
 * `text` as PostgreSQL can store it: NUL and unpaired UTF-16 surrogates replaced with U+FFFD, so
 * a record of what was sent (the audit log) keeps its shape and shows where the offending
 * characters stood. Requests are refused for such text; only records of them are cleaned.
 */
export function toStorableText(text: string): string {
	if (isStorableText(text)) return text;
	return (text.replaceAll("\0", REPLACEMENT_CHARACTER) as WellFormedText).toWellFormed();
}

/** A copy of a JSON-like `value` in which every string and every object key is storable text. */
export function storableCopy(value: unknown, depth = 0): unknown {
	if (typeof value === "string") return toStorableText(value);
	if (value === null || typeof value !== "object") return value;
	if (depth >= MAX_DEPTH) return "…";
	if (Array.isArray(value)) return value.map((item) => storableCopy(item, depth + 1));
	return Object.fromEntries(Object.entries(value).map(([key, item]) => [toStorableText(key), storableCopy(item, depth + 1)]));
}
