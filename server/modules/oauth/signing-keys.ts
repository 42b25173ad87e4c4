import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { Knex } from "@mikro-orm/postgresql";
import type { JWK } from "jose";
import { defineChannel } from "../../db/notifications";
import type { Orm } from "../../db/orm";
import { AppError } from "../../shared/app-error";
import type { SecretBox } from "../../shared/crypto";
import type { UseCaseContext } from "../platform-services";

/** ES256: small signatures, and every MCP client library verifies it. */
export const ACCESS_TOKEN_ALGORITHM = "ES256";

/**
 * Announces a change of the signing keys (rotated in, retired). Acknowledged: the operator's
 * command returns once every instance has dropped its keys, so the next request anywhere signs
 * with the new key, and a retired key's tokens are refused there.
 */
export const SIGNING_KEYS_CHANNEL = defineChannel("oauth_signing_keys_changed", { acknowledged: true });
/** The one payload of SIGNING_KEYS_CHANNEL: the key set is cached whole, under this tag. */
export const SIGNING_KEYS_TAG = "signing-keys";

/** Serialises the first start of several instances on one database: one key, not one per instance. */
const SIGNING_KEY_LOCK = 0x6f617574; // "oaut"

export interface PrivateSigningKey extends JWK {
	kid: string;
	alg: typeof ACCESS_TOKEN_ALGORITHM;
	use: "sig";
}

function generateSigningKey(): PrivateSigningKey {
	const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
	const jwk = privateKey.export({ format: "jwk" }) as JWK;
	return { ...jwk, kid: randomBytes(12).toString("base64url"), alg: ACCESS_TOKEN_ALGORITHM, use: "sig" };
}

const UNRETIRED_KEYS = "select encrypted_private_jwk from oauth_signing_keys where retired_at is null order by created_at desc, id";

async function readUnretiredKeys(knex: Knex): Promise<{ encrypted_private_jwk: string }[]> {
	return ((await knex.raw(UNRETIRED_KEYS)) as { rows: { encrypted_private_jwk: string }[] }).rows;
}

/**
 * The unretired signing keys, newest first (the first signs; the others stay published so tokens
 * they signed still verify). The first start on an empty database creates one, under an advisory
 * lock so instances starting together agree on it.
 *
 * Through knex, never an ORM transaction: MikroORM runs those in an AsyncLocalStorage, and on
 * Node 20 the first one switches on promise hooks that every later request of this process pays
 * for (docs/runtime.md, Benchmark).
 */
export async function loadSigningKeys(orm: Orm, secrets: SecretBox): Promise<PrivateSigningKey[]> {
	const knex = orm.em.getKnex();
	let rows = await readUnretiredKeys(knex);
	if (rows.length === 0) {
		rows = await knex.transaction(async (transaction) => {
			await transaction.raw("select pg_advisory_xact_lock(?)", [SIGNING_KEY_LOCK]);
			// Another instance may have created it while this one waited for the lock.
			if ((await readUnretiredKeys(transaction)).length === 0) await insertSigningKey(transaction, secrets, generateSigningKey());
			return readUnretiredKeys(transaction);
		});
	}
	return rows.map((row) => JSON.parse(secrets.decrypt(row.encrypted_private_jwk)) as PrivateSigningKey);
}

/**
 * Adds a new signing key (operator CLI `signing-key rotate`). Every instance signs with it from
 * its next request; the older keys stay published and accepted until retired, so no token in
 * flight fails.
 */
export async function rotateSigningKey(context: UseCaseContext, _input: Record<string, never> = {}): Promise<{ kid: string }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator rotates signing keys");
	const key = generateSigningKey();
	await insertSigningKey(context.services.orm.em.getKnex(), context.services.secrets, key);
	await context.services.notifications.publish(SIGNING_KEYS_CHANNEL, SIGNING_KEYS_TAG);
	return { kid: key.kid };
}

/**
 * Retires every key but the newest (operator CLI `signing-key retire-old`, once the longest
 * access-token lifetime has passed since the rotation): from the next request on every instance
 * they are no longer published, and tokens they signed are refused.
 */
export async function retireOldSigningKeys(context: UseCaseContext, _input: Record<string, never> = {}): Promise<{ retired: string[] }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator retires signing keys");
	const rows: { id: string }[] = await context.services.orm.em.getConnection().execute(
		`update oauth_signing_keys set retired_at = now()
		 where retired_at is null and id <> (select id from oauth_signing_keys where retired_at is null order by created_at desc, id limit 1)
		 returning id`,
	);
	if (rows.length > 0) await context.services.notifications.publish(SIGNING_KEYS_CHANNEL, SIGNING_KEYS_TAG);
	return { retired: rows.map((row) => row.id) };
}

async function insertSigningKey(knex: Knex, secrets: SecretBox, key: PrivateSigningKey): Promise<void> {
	await knex.raw("insert into oauth_signing_keys (id, encrypted_private_jwk, retired_at, created_at) values (?, ?, null, clock_timestamp())", [
		key.kid,
		secrets.encrypt(JSON.stringify(key)),
	]);
}

/** The public half of a key, as published in the JWKS. */
export function publicJwk(key: PrivateSigningKey): JWK {
	const { d: _private, ...rest } = key;
	void _private;
	return rest;
}
