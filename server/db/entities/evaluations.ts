import { BigIntType, EntitySchema, OptionalProps } from "@mikro-orm/core";
import { AssistantSchema, AssistantVersionSchema, type AssistantConfig } from "./assistants";
import { createdAtColumn, idColumn, json, nullableText, reference, text, timestamp, updatedAtColumn } from "./base";
import { UserSchema, WorkspaceSchema } from "./tenancy";

/** Deleting a dataset or a case only marks it: past runs keep reading the cases they scored. */
export interface EvaluationDataset {
	[OptionalProps]?: "createdAt" | "updatedAt" | "deletedAt";
	id: string;
	workspace: string;
	name: string;
	description: string | null;
	deletedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}
export const EvaluationDatasetSchema = new EntitySchema<EvaluationDataset>({
	name: "EvaluationDataset",
	tableName: "evaluation_datasets",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		name: text(),
		description: nullableText(),
		deletedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	indexes: [{ properties: ["workspace", "createdAt"] }],
});

/** One scorer of a case, as stored (server/modules/evaluations/scorers/scorer-spec.ts checks them). */
export type EvaluationScorerSpec = { name?: string; type: string } & Record<string, unknown>;

/**
 * Immutable once written (a trigger refuses every update but the soft delete): a run reads its
 * cases while others may "edit" them, which adds a new case replacing the old one.
 */
export interface EvaluationCase {
	[OptionalProps]?: "createdAt" | "deletedAt" | "replacesCase";
	id: string;
	workspace: string;
	dataset: string;
	/** The runtime input of a deployed assistant run; null when the case gives `messages` instead. */
	input: string | null;
	/** A conversation sent after the assistant's system prompt; null when the case gives `input`. */
	messages: { role: "system" | "user" | "assistant"; content: string }[] | null;
	variables: Record<string, string | number | boolean>;
	expectedOutput: string | null;
	scorers: EvaluationScorerSpec[];
	/** The case this one was created to replace (an edit). */
	replacesCase: string | null;
	deletedAt: Date | null;
	createdAt: Date;
}
export const EvaluationCaseSchema = new EntitySchema<EvaluationCase>({
	name: "EvaluationCase",
	tableName: "evaluation_cases",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		dataset: reference(() => EvaluationDatasetSchema),
		input: nullableText(),
		messages: json({ nullable: true }),
		variables: json({ default: "{}" }),
		expectedOutput: nullableText(),
		scorers: json({ default: "[]" }),
		replacesCase: nullableText(),
		deletedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
	},
	indexes: [{ properties: ["dataset", "createdAt"] }],
});

export const EVALUATION_RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type EvaluationRunStatus = (typeof EVALUATION_RUN_STATUSES)[number];

/** What a run evaluates, as the caller named it; the resolved version and config are frozen beside it. */
export type EvaluationTarget =
	| { kind: "version"; assistantSlug: string; version: number }
	| { kind: "draft"; assistantSlug: string }
	| { kind: "environment"; assistantSlug: string; environment: string };

/** Who started a run: the generations it makes are traced under this principal. */
export type StoredPrincipal =
	| { kind: "user"; userId: string; clientId: string; connectionId: string; organizationId: string | null; scopes: string[] }
	| { kind: "session"; userId: string; sessionId: string }
	| { kind: "api_key"; apiKeyId: string; workspaceId: string; scopes: string[] }
	| { kind: "operator" };

export interface EvaluationRunAggregates {
	caseCount: number;
	scoredCases: number;
	passedCases: number;
	failedCases: number;
	erroredCases: number;
	/** Passed cases over all cases of the run (errored ones count as not passed). */
	passRate: number;
	/** Per scorer name: mean score over the cases where it produced one. */
	meanScores: Record<string, number>;
	latencyMs: { p50: number | null; p95: number | null };
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
	/** Generations and model-graded scoring together. */
	costMicroUsd: number;
}

export interface EvaluationRun {
	[OptionalProps]?: "createdAt" | "updatedAt" | "status" | "attempts" | "leaseToken" | "leaseExpiresAt" | "aggregates" | "failureReason" | "startedAt" | "finishedAt";
	id: string;
	workspace: string;
	dataset: string;
	assistant: string;
	/** Null when the run evaluates the draft. */
	version: string | null;
	target: EvaluationTarget;
	/** The configuration the run generates with, frozen at start. */
	config: AssistantConfig;
	/** The cases of the dataset when the run started, in order. */
	caseIds: string[];
	concurrency: number;
	status: EvaluationRunStatus;
	aggregates: EvaluationRunAggregates | null;
	failureReason: string | null;
	principal: StoredPrincipal;
	createdByUser: string | null;
	/** Claims a worker holds on the run while it works; an expired one is taken over (evaluation-job.ts). */
	leaseToken: string | null;
	leaseExpiresAt: Date | null;
	attempts: number;
	startedAt: Date | null;
	finishedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}
export const EvaluationRunSchema = new EntitySchema<EvaluationRun>({
	name: "EvaluationRun",
	tableName: "evaluation_runs",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		dataset: reference(() => EvaluationDatasetSchema),
		assistant: reference(() => AssistantSchema),
		version: reference(() => AssistantVersionSchema, { nullable: true }),
		target: json(),
		config: json(),
		caseIds: json(),
		concurrency: { type: "integer", default: 4 },
		status: { enum: true, items: [...EVALUATION_RUN_STATUSES], default: "queued" },
		aggregates: json({ nullable: true }),
		failureReason: nullableText(),
		principal: json(),
		createdByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		leaseToken: nullableText(),
		leaseExpiresAt: timestamp({ nullable: true }),
		attempts: { type: "integer", default: 0 },
		startedAt: timestamp({ nullable: true }),
		finishedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
	// (workspace, startedAt): the fair choice of the next run reads when each waiting workspace last started one.
	indexes: [{ properties: ["workspace", "createdAt"] }, { properties: ["status", "leaseExpiresAt"] }, { properties: ["workspace", "startedAt"] }],
});

export interface EvaluationScore {
	scorer: string;
	type: string;
	/** 0..1; null when the scorer failed. */
	score: number | null;
	passed: boolean | null;
	reasoning: string;
	error: string | null;
}

export const EVALUATION_RESULT_STATUSES = ["passed", "failed", "errored"] as const;

export interface EvaluationResult {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	run: string;
	evaluationCase: string;
	status: (typeof EVALUATION_RESULT_STATUSES)[number];
	output: string | null;
	scores: EvaluationScore[];
	/** Mean of the case's scores; null when the case errored. */
	score: number | null;
	passed: boolean;
	error: string | null;
	latencyMs: number | null;
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
	costMicroUsd: number;
	trace: string | null;
	createdAt: Date;
}
export const EvaluationResultSchema = new EntitySchema<EvaluationResult>({
	name: "EvaluationResult",
	tableName: "evaluation_results",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		run: reference(() => EvaluationRunSchema),
		evaluationCase: reference(() => EvaluationCaseSchema),
		status: { enum: true, items: [...EVALUATION_RESULT_STATUSES] },
		output: nullableText(),
		scores: json({ default: "[]" }),
		score: { type: "double", nullable: true },
		passed: { type: "boolean", default: false },
		error: nullableText(),
		latencyMs: { type: "integer", nullable: true },
		inputTokens: { type: "integer", default: 0 },
		outputTokens: { type: "integer", default: 0 },
		totalTokens: { type: "integer", default: 0 },
		costMicroUsd: { type: new BigIntType("number"), default: 0 },
		trace: nullableText(),
		createdAt: createdAtColumn,
	},
	uniques: [{ properties: ["run", "evaluationCase"] }],
});
