import type { DatabaseNotifications } from "../../db/notifications";
import { LexicalIndexCache } from "../index/lexical-index";
import { VectorCache } from "../index/vector-cache";

/** The per-source in-memory structures search ranks with, one set per process (a platform service). */
export interface KnowledgeSearchCaches {
	readonly lexical: LexicalIndexCache;
	readonly vectors: VectorCache;
}

export function createKnowledgeSearchCaches(notifications: DatabaseNotifications): KnowledgeSearchCaches {
	return { lexical: new LexicalIndexCache(notifications), vectors: new VectorCache(notifications) };
}
