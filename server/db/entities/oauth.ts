import { EntitySchema, OptionalProps } from "@mikro-orm/core";
import { createdAtColumn, idColumn, json, nullableText, reference, text, timestamp, updatedAtColumn } from "./base";
import { OrganizationSchema, UserSchema } from "./tenancy";

/** A user's consent to one MCP client: what the dashboard lists under Connected applications. */
export interface OAuthConnection {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	user: string;
	/** Null when the user opted in to all organizations. */
	organization: string | null;
	clientId: string;
	clientName: string | null;
	scopes: string[];
	grantId: string;
	lastUsedAt: Date | null;
	revokedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}
export const OAuthConnectionSchema = new EntitySchema<OAuthConnection>({
	name: "OAuthConnection",
	tableName: "oauth_connections",
	properties: {
		id: idColumn,
		user: reference(() => UserSchema),
		organization: reference(() => OrganizationSchema, { nullable: true }),
		clientId: text(),
		clientName: nullableText(),
		scopes: { type: "text[]" },
		grantId: text({ unique: true }),
		lastUsedAt: timestamp({ nullable: true }),
		revokedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	// The unused-client sweep looks connections up by client.
	indexes: [{ properties: ["user"] }, { properties: ["clientId"] }],
});

/** Storage for oidc-provider's models (clients, grants, codes, refresh tokens), through its adapter API. */
export interface OAuthRecord {
	id: string;
	model: string;
	payload: Record<string, unknown>;
	grantId: string | null;
	userCode: string | null;
	uid: string | null;
	consumedAt: Date | null;
	expiresAt: Date | null;
}
export const OAuthRecordSchema = new EntitySchema<OAuthRecord>({
	name: "OAuthRecord",
	tableName: "oauth_records",
	properties: {
		id: idColumn,
		model: { type: "string", columnType: "text", primary: true },
		payload: json(),
		grantId: nullableText({ index: true }),
		userCode: nullableText(),
		uid: nullableText(),
		consumedAt: timestamp({ nullable: true }),
		expiresAt: timestamp({ nullable: true }),
	},
	// oidc-provider finds interactions and sessions by uid; the sweep deletes by expiry.
	indexes: [{ properties: ["uid"] }, { properties: ["expiresAt"] }],
});

/**
 * A key that signs access tokens (published in the JWKS). The private JWK is sealed with
 * SECRET_KEY; the newest unretired key signs, older unretired ones stay published so tokens they
 * signed verify until they expire (rotation with overlap).
 */
export interface OAuthSigningKey {
	[OptionalProps]?: "createdAt";
	/** The key id (`kid`). */
	id: string;
	encryptedPrivateJwk: string;
	retiredAt: Date | null;
	createdAt: Date;
}
export const OAuthSigningKeySchema = new EntitySchema<OAuthSigningKey>({
	name: "OAuthSigningKey",
	tableName: "oauth_signing_keys",
	properties: {
		id: idColumn,
		encryptedPrivateJwk: text(),
		retiredAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
	},
});

/**
 * Failed sign-ins counted for one key (an email, an address, or the pair), shared by every
 * instance: the sign-in throttle (server/modules/oauth/sign-in-throttle.ts).
 */
export interface SignInThrottle {
	/** HMAC of the key under SECRET_KEY: the table holds no email or client address in clear. */
	id: string;
	/** Consecutive failures, counting sign-ins being checked right now. */
	failures: number;
	/** The next attempt for this key is refused unchecked before this. */
	blockedUntil: Date;
	/** The count starts over after this (an hour after the delay it earned has passed); rows past it are deleted. */
	forgetAt: Date;
}
export const SignInThrottleSchema = new EntitySchema<SignInThrottle>({
	name: "SignInThrottle",
	tableName: "sign_in_throttles",
	properties: {
		id: idColumn,
		failures: { type: "integer" },
		blockedUntil: timestamp(),
		forgetAt: timestamp({ index: true }),
	},
});

/**
 * Dynamic client registrations per client address (IPv6 by /64) in a fixed one-hour window,
 * counted with one atomic upsert so every instance shares the limit.
 */
export interface OAuthRegistrationWindow {
	/** SHA-256 of the address bucket: the table never holds addresses in clear. */
	id: string;
	registrations: number;
	windowStartedAt: Date;
}
export const OAuthRegistrationWindowSchema = new EntitySchema<OAuthRegistrationWindow>({
	name: "OAuthRegistrationWindow",
	tableName: "oauth_registration_windows",
	properties: {
		id: idColumn,
		registrations: { type: "integer" },
		windowStartedAt: timestamp(),
	},
});
