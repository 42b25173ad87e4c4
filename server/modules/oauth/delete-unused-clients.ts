import type { UseCaseContext } from "../platform-services";

export interface ClientRetention {
	/** A registered client never used for an authorization is removed this long after registering. */
	unusedSeconds: number;
	/** A client with no live connection is removed once nothing happened with it for this long. */
	idleSeconds: number;
}

/**
 * Removes dynamically registered clients nobody uses (clients named by a metadata document are
 * never stored): one never used for an authorization (no connection) once `unusedSeconds` have
 * passed since it registered, and one with no live connection (each revoked, or its grant expired)
 * once `idleSeconds` have passed since anything happened with it (registered, approved, last used,
 * revoked). A client with a live connection, or one a person is signing in for right now, is
 * kept. Connections stay listed as history. Returns the ids removed.
 */
export async function deleteUnusedClients(context: UseCaseContext, input: ClientRetention): Promise<{ deleted: string[] }> {
	const rows = (await context.em.getConnection().execute(
		`with clients as (
		   select r.id, to_timestamp(coalesce((r.payload->>'client_id_issued_at')::bigint, 0)) as registered_at
		   from oauth_records r where r.model = 'Client'
		 ), activity as (
		   select c.client_id,
		          max(greatest(c.created_at, coalesce(c.last_used_at, c.created_at), coalesce(c.revoked_at, c.created_at))) as last_activity,
		          bool_or(c.revoked_at is null and exists (
		            select 1 from oauth_records g where g.id = c.grant_id and g.model = 'Grant' and (g.expires_at is null or g.expires_at > now())
		          )) as live
		   from oauth_connections c join clients on clients.id = c.client_id
		   group by c.client_id
		 )
		 delete from oauth_records r using clients left join activity a on a.client_id = clients.id
		 where r.model = 'Client' and r.id = clients.id
		   -- Not while a person is signing in or consenting for it (an interaction lives an hour at most).
		   and not exists (
		     select 1 from oauth_records i
		     where i.model = 'Interaction' and i.payload->'params'->>'client_id' = clients.id and (i.expires_at is null or i.expires_at > now())
		   )
		   and (
		     (a.client_id is null and clients.registered_at < now() - make_interval(secs => ?))
		     or (not a.live and greatest(clients.registered_at, a.last_activity) < now() - make_interval(secs => ?))
		   )
		 returning r.id`,
		[input.unusedSeconds, input.idleSeconds],
	)) as { id: string }[];
	return { deleted: rows.map((row) => row.id) };
}
