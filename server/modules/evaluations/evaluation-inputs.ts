import { z } from "zod";
import { AppError } from "../../shared/app-error";

/**
 * The inputs of the evaluation use cases live in contract/inputs/evaluations.ts (the MCP tools, the
 * CLI and the management API take them from there); the use cases check them on entry.
 */
export {
	ADD_EVALUATION_CASE_SHAPE,
	ZAddEvaluationCaseInput,
	ZCancelEvaluationRunInput,
	ZCaseRefInput,
	ZCreateEvaluationDatasetInput,
	ZDatasetRefInput,
	ZEvaluationTargetInput,
	ZGetEvaluationRunInput,
	ZListEvaluationDatasetsInput,
	ZListEvaluationRunsInput,
	ZStartEvaluationRunInput,
} from "../../../contract/inputs/evaluations";

/** Parses a use case's input; every offender named, as the HTTP pipeline names them. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown): z.output<T> {
	const parsed = schema.safeParse(input);
	if (!parsed.success) {
		throw AppError.validation(parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "input", issue: issue.message })));
	}
	return parsed.data;
}
