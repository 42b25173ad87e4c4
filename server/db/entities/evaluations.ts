import { EntitySchema, OptionalProps } from "@mikro-orm/core";
import { AssistantSchema, AssistantVersionSchema } from "./assistants";
import { createdAtColumn, idColumn, json, nullableText, reference, text, timestamp, updatedAtColumn } from "./base";
import { UserSchema, WorkspaceSchema } from "./tenancy";

export interface EvaluationDataset {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	name: string;
	description: string | null;
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
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

export interface EvaluationCase {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	dataset: string;
	input: string;
	variables: Record<string, string | number | boolean>;
	/** What a good answer contains or equals; how it is compared is the run's choice. */
	expectedOutput: string | null;
	createdAt: Date;
}
export const EvaluationCaseSchema = new EntitySchema<EvaluationCase>({
	name: "EvaluationCase",
	tableName: "evaluation_cases",
	properties: {
		id: idColumn,
		workspace: reference(() => WorkspaceSchema),
		dataset: reference(() => EvaluationDatasetSchema),
		input: text(),
		variables: json({ default: "{}" }),
		expectedOutput: nullableText(),
		createdAt: createdAtColumn,
	},
});

export const EVALUATION_RUN_STATUSES = ["queued", "running", "completed", "failed"] as const;

export interface EvaluationRun {
	[OptionalProps]?: "createdAt" | "updatedAt";
	id: string;
	workspace: string;
	dataset: string;
	assistant: string;
	version: string;
	status: (typeof EVALUATION_RUN_STATUSES)[number];
	summary: Record<string, unknown> | null;
	createdByUser: string | null;
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
		version: reference(() => AssistantVersionSchema),
		status: { enum: true, items: [...EVALUATION_RUN_STATUSES], default: "queued" },
		summary: json({ nullable: true }),
		createdByUser: reference(() => UserSchema, { nullable: true, deleteRule: "set null" }),
		startedAt: timestamp({ nullable: true }),
		finishedAt: timestamp({ nullable: true }),
		createdAt: createdAtColumn,
		updatedAt: updatedAtColumn,
	},
});

export interface EvaluationResult {
	[OptionalProps]?: "createdAt";
	id: string;
	workspace: string;
	run: string;
	evaluationCase: string;
	output: string | null;
	score: number | null;
	passed: boolean | null;
	error: string | null;
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
		output: nullableText(),
		score: { type: "double", nullable: true },
		passed: { type: "boolean", nullable: true },
		error: nullableText(),
		trace: nullableText(),
		createdAt: createdAtColumn,
	},
	uniques: [{ properties: ["run", "evaluationCase"] }],
});
