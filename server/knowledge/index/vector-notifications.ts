import type { EntityManager } from "@mikro-orm/postgresql";
import { defineChannel } from "../../db/notifications";

/**
 * Tells every instance that a source's chunks (their vectors and lexemes) changed; payload: the
 * source id. Not acknowledged: search joins READY documents, so a cache a moment stale never
 * returns a deleted chunk, and waiting for every process on each ingested document would be slow.
 */
export const KNOWLEDGE_CHUNKS_CHANNEL = defineChannel("knowledge_vectors", { acknowledged: false });

/** Sent inside the caller's transaction: PostgreSQL delivers it only if (and when) it commits. */
export async function notifyChunksChanged(tx: EntityManager, sourceId: string): Promise<void> {
	await tx.getConnection().execute("select pg_notify(?, ?)", [KNOWLEDGE_CHUNKS_CHANNEL.name, sourceId], "all", tx.getTransactionContext());
}

/**
 * Payloads: a source id says "documents of this source changed" (caches compare document versions
 * and update incrementally); `reload:<source id>` says the chunks changed in a way versions do not
 * show (vectors rewritten in place) and caches drop the source.
 */
export function reloadNotification(sourceId: string): string {
	return `reload:${sourceId}`;
}

export function readNotification(payload: string): { sourceId: string; reload: boolean } {
	return payload.startsWith("reload:") ? { sourceId: payload.slice("reload:".length), reload: true } : { sourceId: payload, reload: false };
}
