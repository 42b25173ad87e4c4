import { z } from "../zod";
import { workspaceId } from "./common";

/** The inputs of the trace use cases (server/modules/traces) that the dashboard calls. */

export const ZGetTraceInput = z.object({ workspaceId, traceId: z.string().min(1).max(100).describe("A trace id (list_traces)") }).strict();
