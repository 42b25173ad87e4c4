import type { z } from "zod";
import { AppError } from "./app-error";
import { zodErrorToFields } from "./request-fields";

/**
 * A use case's input checked against its schema (contract/inputs), whichever transport brought it:
 * VALIDATION_ERROR naming every offender as the HTTP layer would (`patch.variables[0].name`).
 */
export function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown): z.output<T> {
	const parsed = schema.safeParse(input);
	if (!parsed.success) throw AppError.validation(zodErrorToFields(parsed.error, "input"));
	return parsed.data;
}
