import type { z } from "zod";
import type { ZRunPlaygroundInput } from "../../../contract/inputs/assistants";
import type { UseCaseContext } from "../platform-services";
import { type GenerationCaller, streamGeneration } from "../runtime/run-generation";
import { preparePlaygroundGeneration } from "./prepare-playground-generation";

/**
 * One playground turn streamed (the dashboard's playground): the runtime's streaming path, so a
 * failure before the first event is still an error answer, after it a terminal `error` event, and
 * a caller that goes away cancels the provider request. `events` starts the generation when first
 * read; the trace is written under `traceId` whatever happens.
 */
export async function streamPlayground(
	context: UseCaseContext,
	input: z.input<typeof ZRunPlaygroundInput>,
	caller?: GenerationCaller,
): Promise<{ traceId: string; ranOn: "draft" | number; events: ReturnType<typeof streamGeneration> }> {
	const generation = await preparePlaygroundGeneration(context, input);
	return { traceId: generation.origin.traceId, ranOn: generation.ranOn, events: streamGeneration(context, generation, caller) };
}
