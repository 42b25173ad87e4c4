import { z } from "../zod";
import { workspaceId } from "./common";

/** The inputs of the knowledge use cases (server/modules/knowledge) that the dashboard calls. */

export const sourceId = z.string().min(1).max(100).describe("A knowledge source id (list_knowledge_sources)");
export const documentId = z.string().min(1).max(100).describe("A document id (list_knowledge_documents)");

export const ZKnowledgeSourceInput = z.object({ workspaceId, sourceId }).strict();
export const ZKnowledgeDocumentInput = z.object({ workspaceId, sourceId, documentId }).strict();
