import { EntitySchema, OptionalProps } from "@mikro-orm/core";
import type { AssistantTool } from "../../../contract/inputs/assistant-tools";
import { createdAtColumn, idColumn, json, nullableText, reference, text, timestamp, updatedAtColumn } from "./base";
import { type ProviderName, UserSchema, WorkspaceSchema } from "./tenancy";

export interface PromptVariable {
	name: string;
	type: "string" | "number" | "boolean";
	required: boolean;
	default?: string | number | boolean;
	description?: string;
}

export interface AttachedKnowledge {
	sourceId: string;
	topK: number;
	minScore?: number;
}

/** Everything a version freezes: what the runtime needs to serve a deployed assistant. */
export interface AssistantConfig {
	provider: ProviderName;
	model: string;
	/** Template with `{{variable}}` placeholders. */
	systemPrompt: string;
	variables: PromptVariable[];
	generation: {
		temperature?: number;
		maxOutputTokens?: number;
		responseFormat?: "text" | "json";
		timeoutMs?: number;
		maxRetries?: number;
		/** Model calls that may ask for tools (default 5, at most 20). */
		maxToolSteps?: number;
	};
	knowledge: AttachedKnowledge[];
	/** Absent in versions made before tools existed. */
	tools?: AssistantTool[];
}

export interface Assistant {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	slug: string;
	name: string;
	description: string | null;
	archivedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}
export const AssistantSchema = new EntitySchema<Assistant>({
	name: "Assistant",
	tableName: "assistants",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		slug: text(),
		name: text(),
		description: nullableText(),
		archivedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["workspace", "slug"] }],
});

/** The one editable working copy of an assistant; versions are frozen copies of it. */
export interface AssistantDraft {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	assistant: string;
	config: AssistantConfig;
	updatedByUser: string | null;
	createdAt: Date;
	updatedAt: Date;
}
export const AssistantDraftSchema = new EntitySchema<AssistantDraft>({
	name: "AssistantDraft",
	tableName: "assistant_drafts",
	properties: {
		id: idColumn,
		assistant: reference(() => AssistantSchema, { unique: true }),
		config: json(),
		updatedByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

/** Immutable: never updated after insert (enforced by a trigger in the migration). */
export interface AssistantVersion {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	assistant: string;
	version: number;
	config: AssistantConfig;
	note: string | null;
	createdByUser: string | null;
	createdAt: Date;
}
export const AssistantVersionSchema = new EntitySchema<AssistantVersion>({
	name: "AssistantVersion",
	tableName: "assistant_versions",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		assistant: reference(() => AssistantSchema),
		version: { type: "integer" },
		config: json(),
		note: nullableText(),
		createdByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		createdAt: createdAtColumn,
	},
	uniques: [{ properties: ["assistant", "version"] }],
});

export interface Environment {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	slug: string;
	name: string;
	description: string | null;
	createdAt: Date;
	updatedAt: Date;
}
export const EnvironmentSchema = new EntitySchema<Environment>({
	name: "Environment",
	tableName: "environments",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		slug: text(),
		name: text(),
		description: nullableText(),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["workspace", "slug"] }],
});

/** The version an assistant serves in one environment; its history is in DeploymentEvent. */
export interface Deployment {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	assistant: string;
	environment: string;
	version: string;
	deployedByUser: string | null;
	createdAt: Date;
	updatedAt: Date;
}
export const DeploymentSchema = new EntitySchema<Deployment>({
	name: "Deployment",
	tableName: "deployments",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		assistant: reference(() => AssistantSchema),
		environment: reference(() => EnvironmentSchema),
		version: reference(() => AssistantVersionSchema, { deleteRule: "restrict" }),
		deployedByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	uniques: [{ properties: ["assistant", "environment"] }],
});

export const DEPLOYMENT_ACTIONS = ["publish", "rollback"] as const;

export interface DeploymentEvent {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	assistant: string;
	environment: string;
	version: string;
	previousVersion: string | null;
	action: (typeof DEPLOYMENT_ACTIONS)[number];
	actorUser: string | null;
	createdAt: Date;
}
export const DeploymentEventSchema = new EntitySchema<DeploymentEvent>({
	name: "DeploymentEvent",
	tableName: "deployment_events",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		assistant: reference(() => AssistantSchema),
		environment: reference(() => EnvironmentSchema),
		version: reference(() => AssistantVersionSchema, { deleteRule: "restrict" }),
		previousVersion: reference(() => AssistantVersionSchema, { nullable: true, deleteRule: "restrict" }),
		action: { enum: true, items: [...DEPLOYMENT_ACTIONS] },
		actorUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["assistant", "environment", "createdAt"] }],
});
