import { EntitySchema, OptionalProps } from "@mikro-orm/core";
import { createdAtColumn, idColumn, nullableText, reference, text, timestamp } from "./base";
import { OrganizationSchema, UserSchema } from "./tenancy";

/**
 * A signed-in browser: the one session of the dashboard, the consent screen and Connected
 * applications. The cookie carries a random token; only its SHA-256 is stored, so a copy of this
 * table signs nobody in.
 */
export interface UserSession {
	[OptionalProps]?: "createdAt" | "endedAt";
	/** Public id (ses_…), for listing and ending sessions. */
	id: string;
	tokenHash: string;
	user: string;
	/** Ends at the latest (absolute lifetime); idle sessions end earlier (last seen + idle timeout). */
	expiresAt: Date;
	lastSeenAt: Date;
	/** Set when signed out (here, or everywhere). */
	endedAt: Date | null;
	userAgent: string | null;
	clientAddress: string | null;
	createdAt: Date;
}
export const UserSessionSchema = new EntitySchema<UserSession>({
	name: "UserSession",
	tableName: "user_sessions",
	properties: {
		id: idColumn,
		tokenHash: text({ unique: true }),
		user: reference(() => UserSchema),
		expiresAt: timestamp(),
		lastSeenAt: timestamp(),
		endedAt: timestamp({ nullable: true }),
		userAgent: nullableText(),
		clientAddress: nullableText(),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["user"] }, { properties: ["expiresAt"] }],
});

/**
 * An invitation to join an organization with a role: a single-use link, expiring, that a person
 * opens to set their password (or, with an account already, to accept). No email is sent: the
 * inviter passes the link on. Only the token's SHA-256 is stored.
 */
export interface Invitation {
	[OptionalProps]?: "createdAt" | "acceptedAt" | "revokedAt" | "acceptedByUser";
	id: string;
	organization: string;
	email: string;
	role: "owner" | "admin" | "member" | "viewer";
	tokenHash: string;
	invitedByUser: string | null;
	expiresAt: Date;
	acceptedAt: Date | null;
	acceptedByUser: string | null;
	revokedAt: Date | null;
	createdAt: Date;
}
export const InvitationSchema = new EntitySchema<Invitation>({
	name: "Invitation",
	tableName: "invitations",
	properties: {
		id: idColumn,
		organization: reference(() => OrganizationSchema),
		email: text(),
		role: text(),
		tokenHash: text({ unique: true }),
		invitedByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		expiresAt: timestamp(),
		acceptedAt: timestamp({ nullable: true }),
		acceptedByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		revokedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["organization"] }],
});
