import { BigIntType, EntitySchema, OptionalProps } from "@mikro-orm/core";
import { createdAtColumn, idColumn, nullableText, reference, text, timestamp, updatedAtColumn } from "./base";

export const MEMBER_ROLES = ["owner", "admin", "member", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export interface Organization {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	name: string;
	/** Owners can switch off every mcp:admin tool for the organization (spec, MCP rule 5). */
	mcpAdminDisabled: boolean;
	createdAt: Date;
	updatedAt: Date;
}
export const OrganizationSchema = new EntitySchema<Organization>({
	name: "Organization",
	tableName: "organizations",
	properties: {
		id: idColumn,
		name: text(),
		mcpAdminDisabled: { type: "boolean", default: false },
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

export interface User {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	/** Stored lower-cased; unique across the installation. */
	email: string;
	passwordHash: string;
	name: string | null;
	createdAt: Date;
	updatedAt: Date;
}
export const UserSchema = new EntitySchema<User>({
	name: "User",
	tableName: "users",
	properties: {
		id: idColumn,
		email: text({ unique: true }),
		passwordHash: text(),
		name: nullableText(),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

export interface Membership {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	organization: string;
	user: string;
	role: MemberRole;
	createdAt: Date;
	updatedAt: Date;
}
export const MembershipSchema = new EntitySchema<Membership>({
	name: "Membership",
	tableName: "memberships",
	properties: {
		id: idColumn,
		organization: reference(() => OrganizationSchema),
		user: reference(() => UserSchema),
		role: { enum: true, items: [...MEMBER_ROLES] },
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["organization", "user"] }],
});

export interface Workspace {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	organization: string;
	name: string;
	/** When false, traces keep metadata (tokens, latency, cost) but not prompts or outputs. */
	storeTraceContent: boolean;
	/** Per-key requests per minute; null = the installation default. */
	rateLimitPerMinute: number | null;
	/** Spend quota in micro-USD per calendar month; null = the installation default. */
	monthlySpendQuotaMicroUsd: number | null;
	/** Knowledge storage allowance in bytes; null = the installation default. */
	storageAllowanceBytes: number | null;
	createdAt: Date;
	updatedAt: Date;
}
export const WorkspaceSchema = new EntitySchema<Workspace>({
	name: "Workspace",
	tableName: "workspaces",
	properties: {
		id: idColumn,
		organization: reference(() => OrganizationSchema),
		name: text(),
		storeTraceContent: { type: "boolean", default: true },
		rateLimitPerMinute: { type: "integer", nullable: true },
		monthlySpendQuotaMicroUsd: { type: new BigIntType("number"), nullable: true },
		storageAllowanceBytes: { type: new BigIntType("number"), nullable: true },
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

export interface ApiKey {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	name: string;
	/** SHA-256 of the whole key: keys carry 256 bits of randomness, so a slow hash adds nothing. */
	keyHash: string;
	/** First characters of the key, for display (`csk_live_AbCd…`). */
	keyPrefix: string;
	scopes: string[];
	createdByUser: string | null;
	lastUsedAt: Date | null;
	revokedAt: Date | null;
	createdAt: Date;
}
export const ApiKeySchema = new EntitySchema<ApiKey>({
	name: "ApiKey",
	tableName: "api_keys",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		name: text(),
		keyHash: text({ unique: true }),
		keyPrefix: text(),
		scopes: { type: "text[]" },
		createdByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		lastUsedAt: timestamp({ nullable: true }),
		revokedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["workspace"] }],
});

export const PROVIDERS = ["openai", "mistral", "openai-compatible"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderCredential {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	provider: ProviderName;
	/** AES-256-GCM under SECRET_KEY: `v1:<iv>:<tag>:<ciphertext>` in base64url. */
	encryptedApiKey: string;
	/** Last four characters, so an operator can tell which key is stored. */
	apiKeyHint: string;
	baseUrl: string | null;
	createdAt: Date;
	updatedAt: Date;
}
export const ProviderCredentialSchema = new EntitySchema<ProviderCredential>({
	name: "ProviderCredential",
	tableName: "provider_credentials",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		provider: { enum: true, items: [...PROVIDERS] },
		encryptedApiKey: text(),
		apiKeyHint: text(),
		baseUrl: nullableText(),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["workspace", "provider"] }],
});

/** A value an assistant's tools send (an API key in an http or mcp tool's header), referenced by name. */
export interface WorkspaceSecret {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	name: string;
	/** AES-256-GCM under SECRET_KEY, as provider keys. */
	encryptedValue: string;
	createdAt: Date;
	updatedAt: Date;
}
export const WorkspaceSecretSchema = new EntitySchema<WorkspaceSecret>({
	name: "WorkspaceSecret",
	tableName: "workspace_secrets",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		name: text(),
		encryptedValue: text(),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["workspace", "name"] }],
});
