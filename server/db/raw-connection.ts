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

export interface PooledClient {
	acquireConnection(): Promise<RawConnection>;
	releaseConnection(connection: RawConnection): Promise<unknown>;
}

/**
 * One read on a connection of the ORM's pool, sent straight to the driver (`$n` placeholders),
 * outside any transaction of `em`: for a search's statements, where the query builder, knex's
 * runner and entity hydration took about a sixth of a search's event-loop time at 100,000 chunks
 * (docs/knowledge.md). The same pool, limits and connection errors as every other query.
 */
export async function driverQuery<Row>(em: EntityManager, text: string, values: unknown[]): Promise<Row[]> {
	const client = em.getKnex().client as PooledClient;
	const connection = await client.acquireConnection();
	try {
		return (await connection.query<Row>(text, values)).rows;
	} finally {
		await client.releaseConnection(connection);
	}
}
