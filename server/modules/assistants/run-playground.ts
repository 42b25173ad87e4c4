import type { z } from "zod";
import type { ZRunPlaygroundInput } from "../../../contract/inputs/assistants";
import type { TGenerationResult } from "../../../contract/schemas/runtime";
import type { UseCaseContext } from "../platform-services";
import { executeGeneration } from "../runtime/run-generation";
import { preparePlaygroundGeneration } from "./prepare-playground-generation";

/** One playground turn answered whole (MCP run_playground, the operator CLI); see preparePlaygroundGeneration. */
export async function runPlayground(context: UseCaseContext, input: z.input<typeof ZRunPlaygroundInput>): Promise<TGenerationResult & { ranOn: "draft" | number }> {
	const generation = await preparePlaygroundGeneration(context, input);
	return { ...(await executeGeneration(context, generation)), ranOn: generation.ranOn };
}
