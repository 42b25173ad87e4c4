import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Orm } from "../db/orm";
import { clientMetadataSizeProblem, redirectUriProblem } from "../modules/oauth/client-metadata-policy";

interface RecordRow {
	payload: AdapterPayload;
	/** As the driver returns it (a string here); read through new Date(). */
	consumed_at: Date | string | null;
}

export interface PostgresAdapterOptions {
	orm: Orm;
	/** Seconds after a refresh token's rotation during which presenting it again is not treated as reuse (OAUTH_REFRESH_REUSE_GRACE_SECONDS). */
	refreshReuseGraceSeconds: number;
}

/**
 * oidc-provider's persistence (its adapter interface, one instance per model: Client, Grant,
 * Session, Interaction, AuthorizationCode, RefreshToken…) on the `oauth_records` table, so every
 * server instance sees the same state and nothing lives in one process's memory.
 *
 * Refresh-token reuse (RFC 9700 §4.14.2): oidc-provider revokes the grant when a consumed refresh
 * token comes back. Within the grace window after its rotation, `find` reports the token as not
 * consumed; the provider's `rotateRefreshToken` hook (authorization-server.ts) then tries to claim
 * the rotation (claimRefreshTokenRotation), finds it taken and answers with an access token only,
 * so two concurrent refreshes, or a client that lost the rotated token to a crash, are not logged
 * out by a race, and one refresh token never has two successors.
 *
 * A grant lives as long as its newest refresh token: each one stored extends the grant's expiry,
 * so a connection in use never expires, and one unused for the refresh-token lifetime does.
 */
export function createPostgresAdapterFactory(options: PostgresAdapterOptions): (model: string) => Adapter {
	return (model) => new PostgresAdapter(model, options);
}

class PostgresAdapter implements Adapter {
	constructor(
		private readonly model: string,
		private readonly options: PostgresAdapterOptions,
	) {}

	private get connection() {
		return this.options.orm.em.getConnection();
	}

	async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
		const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
		// A Grant is its own grant: storing its id as grant_id lets revokeByGrantId remove it too.
		const grantId = this.model === "Grant" ? id : (payload.grantId ?? null);
		await this.connection.execute(
			`insert into oauth_records (id, model, payload, grant_id, user_code, uid, consumed_at, expires_at)
			 values (?, ?, ?::jsonb, ?, ?, ?, null, ?)
			 on conflict (id, model) do update set payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
			   uid = excluded.uid, expires_at = excluded.expires_at`,
			[id, this.model, JSON.stringify(payload), grantId, payload.userCode ?? null, payload.uid ?? null, expiresAt],
		);
		if (this.model === "RefreshToken" && payload.grantId && typeof payload.exp === "number") {
			// oidc-provider reads a grant's expiry from its payload (`exp`), the sweep from expires_at: both move.
			await this.connection.execute(
				`update oauth_records set expires_at = to_timestamp(?), payload = jsonb_set(payload, '{exp}', to_jsonb(?::bigint))
				 where id = ? and model = 'Grant' and (payload->>'exp')::bigint < ?`,
				[payload.exp, payload.exp, payload.grantId, payload.exp],
			);
		}
	}

	async find(id: string): Promise<AdapterPayload | undefined> {
		return this.findWhere("id = ?", id);
	}

	async findByUid(uid: string): Promise<AdapterPayload | undefined> {
		return this.findWhere("uid = ?", uid);
	}

	async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
		return this.findWhere("user_code = ?", userCode);
	}

	private async findWhere(condition: string, value: string): Promise<AdapterPayload | undefined> {
		const rows: RecordRow[] = await this.connection.execute(
			`select payload, consumed_at from oauth_records where model = ? and ${condition} and (expires_at is null or expires_at > now()) limit 1`,
			[this.model, value],
		);
		const row = rows[0];
		if (!row) return undefined;
		const payload = { ...row.payload };
		// A client stored before the redirect URI and size rules that breaks them is not a client any more.
		if (this.model === "Client" && clientBreaksRules(payload)) return undefined;
		if (row.consumed_at) {
			const consumedAt = new Date(row.consumed_at).getTime();
			const graceEnds = consumedAt + this.options.refreshReuseGraceSeconds * 1000;
			if (this.model === "RefreshToken" && Date.now() < graceEnds) delete payload.consumed;
			else payload.consumed = Math.floor(consumedAt / 1000);
		}
		return payload;
	}

	async consume(id: string): Promise<void> {
		await this.connection.execute("update oauth_records set consumed_at = now() where id = ? and model = ? and consumed_at is null", [id, this.model]);
	}

	async destroy(id: string): Promise<void> {
		await this.connection.execute("delete from oauth_records where id = ? and model = ?", [id, this.model]);
	}

	/**
	 * The grant is dead (a code or refresh token reused, or the connection revoked): every record
	 * of it goes, and its connection is marked revoked, so access tokens it issued fail on their
	 * next request (the MCP endpoint checks the connection every time).
	 */
	async revokeByGrantId(grantId: string): Promise<void> {
		await revokeGrant(this.options.orm, grantId);
	}
}

/** Every record of the grant goes, and its connection is marked revoked. */
export async function revokeGrant(orm: Orm, grantId: string): Promise<void> {
	const connection = orm.em.getConnection();
	await connection.execute("delete from oauth_records where grant_id = ?", [grantId]);
	await connection.execute("update oauth_connections set revoked_at = now(), updated_at = now() where grant_id = ? and revoked_at is null", [grantId]);
}

/**
 * Claims the rotation of a refresh token: true for exactly one caller (one row updated, under
 * PostgreSQL's row lock), false for every other presenter, concurrent or later, on any instance.
 */
export async function claimRefreshTokenRotation(orm: Orm, id: string): Promise<boolean> {
	const rows: { id: string }[] = await orm.em
		.getConnection()
		.execute("update oauth_records set consumed_at = now() where id = ? and model = 'RefreshToken' and consumed_at is null returning id", [id]);
	return rows.length === 1;
}

/**
 * Removes records a day past their expiry (oidc-provider never asks for them again), and the
 * registration access tokens earlier versions stored without an expiry (none is issued now, and
 * registration management is off, so nothing reads them).
 */
export async function deleteExpiredOAuthRecords(orm: Orm): Promise<void> {
	await orm.em.getConnection().execute("delete from oauth_records where expires_at < now() - interval '1 day' or model = 'RegistrationAccessToken'");
}

function clientBreaksRules(payload: AdapterPayload): boolean {
	const redirectUris = (payload as { redirect_uris?: unknown }).redirect_uris;
	return clientMetadataSizeProblem(payload as Record<string, unknown>) !== undefined || (Array.isArray(redirectUris) && redirectUris.some((uri) => redirectUriProblem(uri) !== undefined));
}
