import type { z, ZodTypeAny } from "zod";
import { AppError } from "./app-error";
import { zodErrorToFields } from "./request-fields";

/**
 * A use case's input checked on entry against its schema (contract/inputs/), whoever called: the
 * transports check the same schema first, so this refuses only what a direct caller sent, with
 * the fields named as the HTTP pipeline and the MCP layer name them.
 */
export function parseUseCaseInput<T extends ZodTypeAny>(schema: T, input: unknown): z.output<T> {
	const parsed = schema.safeParse(input);
	if (!parsed.success) throw AppError.validation(zodErrorToFields(parsed.error, "input"));
	return parsed.data;
}
