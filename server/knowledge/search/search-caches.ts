import type { DatabaseNotifications } from "../../db/notifications";
import { IndexBuilderPool } from "../index/index-builder-pool";
import { LexicalIndexCache } from "../index/lexical-index";
import { VectorCache } from "../index/vector-cache";

/** The per-source in-memory structures search ranks with, one set per process (a platform service). */
export interface KnowledgeSearchCaches {
	readonly lexical: LexicalIndexCache;
	readonly vectors: VectorCache;
	/** The threads both are built on (each with a connection to `databaseUrl` while it builds). */
	readonly builders: IndexBuilderPool;
	close(): Promise<void>;
}

export function createKnowledgeSearchCaches(notifications: DatabaseNotifications, databaseUrl: string): KnowledgeSearchCaches {
	const builders = new IndexBuilderPool(databaseUrl);
	return {
		lexical: new LexicalIndexCache(notifications, builders),
		vectors: new VectorCache(notifications, builders),
		builders,
		close: () => builders.close(),
	};
}
