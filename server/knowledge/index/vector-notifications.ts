import type { EntityManager } from "@mikro-orm/postgresql";

/** LISTEN/NOTIFY channel telling every instance that a source's vectors changed. */
export const VECTORS_CHANNEL = "knowledge_vectors";

/** Sent inside the caller's transaction: PostgreSQL delivers it only if (and when) it commits. */
export async function notifyVectorsChanged(tx: EntityManager, sourceId: string): Promise<void> {
	await tx.getConnection().execute("select pg_notify(?, ?)", [VECTORS_CHANNEL, sourceId], "all", tx.getTransactionContext());
}
