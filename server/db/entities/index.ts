import { AssistantDraftSchema, AssistantSchema, AssistantVersionSchema, DeploymentEventSchema, DeploymentSchema, EnvironmentSchema } from "./assistants";
import { EvaluationCaseSchema, EvaluationDatasetSchema, EvaluationResultSchema, EvaluationRunSchema } from "./evaluations";
import { KnowledgeChunkSchema, KnowledgeDocumentSchema, KnowledgeSourceSchema } from "./knowledge";
import { OAuthConnectionSchema, OAuthRecordSchema, OAuthRegistrationWindowSchema, OAuthSigningKeySchema, SignInThrottleSchema } from "./oauth";
import { AuditEventSchema, IdempotencyRecordSchema, TraceSchema } from "./observability";
import { RateLimitWindowSchema, WorkspaceMonthlySpendSchema } from "./quotas";
import { InvitationSchema, UserSessionSchema } from "./sessions";
import { ApiKeySchema, MembershipSchema, OrganizationSchema, ProviderCredentialSchema, UserSchema, WorkspaceSchema, WorkspaceSecretSchema } from "./tenancy";

export * from "./assistants";
export * from "./evaluations";
export * from "./knowledge";
export * from "./oauth";
export * from "./observability";
export * from "./quotas";
export * from "./sessions";
export * from "./tenancy";

export const ENTITY_SCHEMAS = [
	OrganizationSchema,
	UserSchema,
	MembershipSchema,
	WorkspaceSchema,
	ApiKeySchema,
	ProviderCredentialSchema,
	WorkspaceSecretSchema,
	AssistantSchema,
	AssistantDraftSchema,
	AssistantVersionSchema,
	EnvironmentSchema,
	DeploymentSchema,
	DeploymentEventSchema,
	KnowledgeSourceSchema,
	KnowledgeDocumentSchema,
	KnowledgeChunkSchema,
	EvaluationDatasetSchema,
	EvaluationCaseSchema,
	EvaluationRunSchema,
	EvaluationResultSchema,
	TraceSchema,
	AuditEventSchema,
	IdempotencyRecordSchema,
	OAuthConnectionSchema,
	OAuthRecordSchema,
	OAuthSigningKeySchema,
	SignInThrottleSchema,
	OAuthRegistrationWindowSchema,
	RateLimitWindowSchema,
	WorkspaceMonthlySpendSchema,
	UserSessionSchema,
	InvitationSchema,
];
