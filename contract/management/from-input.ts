import type { ZodTypeAny } from "zod";
import { z } from "../zod";

/**
 * A use case's input field as a URL carries it (path or query): numbers and booleans arrive as
 * text. The field's own schema still decides what is valid, so its rules live once.
 */
export function fromUrlNumber<T extends ZodTypeAny>(field: T) {
	return described(z.preprocess((value) => (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value), field), field);
}

export function fromUrlBoolean<T extends ZodTypeAny>(field: T) {
	return described(z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), field), field);
}

/** The field's description on the wrapper too, where the API reference looks for it. */
function described<W extends ZodTypeAny>(wrapper: W, field: ZodTypeAny): W {
	return field.description ? wrapper.describe(field.description) : wrapper;
}
