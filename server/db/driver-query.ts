import type { EntityManager } from "@mikro-orm/postgresql";

interface PooledClient {
	acquireConnection(): Promise<{ query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> }>;
	releaseConnection(connection: unknown): Promise<unknown>;
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
		return (await connection.query(text, values)).rows as Row[];
	} finally {
		await client.releaseConnection(connection);
	}
}
