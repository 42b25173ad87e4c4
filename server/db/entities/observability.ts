import { BigIntType, EntitySchema, OptionalProps } from "@mikro-orm/core";
import { createdAtColumn, idColumn, json, nullableText, text, timestamp } from "./base";

/**
 * One generation. References are plain ids, not foreign keys: traces are an append-only log that
 * must outlive (and never block deleting) the keys, assistants and versions they mention.
 */
export interface Trace {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	apiKey: string | null;
	/** Who asked (server/shared/principal.ts): `api_key`, `user` (an MCP connection) or `operator`. */
	principalType: string;
	/** The key's or the user's id; null for the operator. */
	principalId: string | null;
	kind: string;
	streamed: boolean;
	assistant: string | null;
	version: string | null;
	environment: string | null;
	provider: string;
	model: string;
	/** Null when the workspace switched content storage off. */
	input: unknown;
	output: string | null;
	/** With tools: each model call (tokens, cost) and tool call (name, arguments with secrets redacted, outcome, size, latency); content, like input. */
	steps: unknown;
	latencyMs: number;
	timeToFirstTokenMs: number | null;
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
	costMicroUsd: number;
	finishReason: string | null;
	errorCode: string | null;
	errorMessage: string | null;
	createdAt: Date;
}
export const TraceSchema = new EntitySchema<Trace>({
	name: "Trace",
	tableName: "traces",
	properties: {
		id: idColumn,
		workspace: text(),
		apiKey: nullableText(),
		principalType: text(),
		principalId: nullableText(),
		kind: text(),
		streamed: { type: "boolean" },
		assistant: nullableText(),
		version: nullableText(),
		environment: nullableText(),
		provider: text(),
		model: text(),
		input: json({ nullable: true }),
		output: nullableText(),
		steps: json({ nullable: true }),
		latencyMs: { type: "integer" },
		timeToFirstTokenMs: { type: "integer", nullable: true },
		inputTokens: { type: "integer", default: 0 },
		outputTokens: { type: "integer", default: 0 },
		totalTokens: { type: "integer", default: 0 },
		costMicroUsd: { type: new BigIntType("number"), default: 0 },
		finishReason: nullableText(),
		errorCode: nullableText(),
		errorMessage: nullableText(),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["workspace", "createdAt"] }],
});

export interface AuditEvent {
	[OptionalProps]?: "createdAt";
	id: string;
	organization: string | null;
	workspace: string | null;
	actorType: string;
	actorId: string | null;
	action: string;
	outcome: string;
	details: Record<string, unknown>;
	createdAt: Date;
}
export const AuditEventSchema = new EntitySchema<AuditEvent>({
	name: "AuditEvent",
	tableName: "audit_events",
	properties: {
		id: idColumn,
		organization: nullableText(),
		workspace: nullableText(),
		actorType: text(),
		actorId: nullableText(),
		action: text(),
		outcome: text(),
		details: json({ default: "{}" }),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["organization", "createdAt"] }],
});

/** A stored answer for an Idempotency-Key, per workspace, kept 24 hours. */
export interface IdempotencyRecord {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	key: string;
	requestHash: string;
	state: "running" | "completed";
	responseStatus: number | null;
	responseHeaders: Record<string, string> | null;
	responseBody: string | null;
	expiresAt: Date;
	createdAt: Date;
}
export const IdempotencyRecordSchema = new EntitySchema<IdempotencyRecord>({
	name: "IdempotencyRecord",
	tableName: "idempotency_records",
	properties: {
		id: idColumn,
		workspace: text(),
		key: text(),
		requestHash: text(),
		state: text(),
		responseStatus: { type: "integer", nullable: true },
		responseHeaders: json({ nullable: true }),
		responseBody: nullableText(),
		expiresAt: timestamp(),
		createdAt: createdAtColumn,
	},
	uniques: [{ properties: ["workspace", "key"] }],
	indexes: [{ properties: ["expiresAt"] }],
});
