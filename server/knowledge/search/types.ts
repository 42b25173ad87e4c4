import type { z } from "zod";
import type { ZSearchResult } from "../../../contract/schemas/knowledge";

export type TKnowledgeSearchResult = z.infer<typeof ZSearchResult>;
