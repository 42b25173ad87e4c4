import type { EntityManager } from "@mikro-orm/postgresql";

export interface RawConnection {
	query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

/**
 * The pg client under a MikroORM transaction (its knex transaction's connection). For statements
 * with `$n` placeholders and binary parameters (Buffers), which em.execute's `?` formatting does
 * not take; whatever runs on it is part of the transaction.
 */
export async function rawConnection(tx: EntityManager): Promise<RawConnection> {
	const context = tx.getTransactionContext() as { client?: { acquireConnection(): Promise<unknown> } } | undefined;
	if (!context?.client) throw new Error("rawConnection needs an EntityManager inside a transaction");
	return (await context.client.acquireConnection()) as RawConnection;
}
