import { Migration } from '@mikro-orm/migrations';

export class Migration20261123030100 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "audit_events" ("id" text not null, "organization" text null, "workspace" text null, "actor_type" text not null, "actor_id" text null, "action" text not null, "outcome" text not null, "details" jsonb not null default '{}', "created_at" timestamptz not null, constraint "audit_events_pkey" primary key ("id"));`);
    this.addSql(`create index "audit_events_organization_created_at_index" on "audit_events" ("organization", "created_at");`);

    this.addSql(`create table "idempotency_records" ("id" text not null, "workspace" text not null, "key" text not null, "request_hash" text not null, "state" text not null, "response_status" int null, "response_headers" jsonb null, "response_body" text null, "expires_at" timestamptz not null, "created_at" timestamptz not null, constraint "idempotency_records_pkey" primary key ("id"));`);
    this.addSql(`create index "idempotency_records_expires_at_index" on "idempotency_records" ("expires_at");`);
    this.addSql(`alter table "idempotency_records" add constraint "idempotency_records_workspace_key_unique" unique ("workspace", "key");`);

    this.addSql(`create table "oauth_records" ("id" text not null, "model" text not null, "payload" jsonb not null, "grant_id" text null, "user_code" text null, "uid" text null, "consumed_at" timestamptz null, "expires_at" timestamptz null, constraint "oauth_records_pkey" primary key ("id", "model"));`);
    this.addSql(`create index "oauth_records_grant_id_index" on "oauth_records" ("grant_id");`);

    this.addSql(`create table "organizations" ("id" text not null, "name" text not null, "mcp_admin_disabled" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "organizations_pkey" primary key ("id"));`);

    this.addSql(`create table "traces" ("id" text not null, "workspace" text not null, "api_key" text null, "kind" text not null, "streamed" boolean not null, "assistant" text null, "version" text null, "environment" text null, "provider" text not null, "model" text not null, "input" jsonb null, "output" text null, "latency_ms" int not null, "time_to_first_token_ms" int null, "input_tokens" int not null default 0, "output_tokens" int not null default 0, "total_tokens" int not null default 0, "cost_micro_usd" bigint not null default 0, "finish_reason" text null, "error_code" text null, "error_message" text null, "created_at" timestamptz not null, constraint "traces_pkey" primary key ("id"));`);
    this.addSql(`create index "traces_workspace_created_at_index" on "traces" ("workspace", "created_at");`);

    this.addSql(`create table "users" ("id" text not null, "email" text not null, "password_hash" text not null, "name" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "users_pkey" primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "oauth_connections" ("id" text not null, "user_id" text not null, "organization_id" text null, "client_id" text not null, "client_name" text null, "scopes" text[] not null, "grant_id" text not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "oauth_connections_pkey" primary key ("id"));`);
    this.addSql(`alter table "oauth_connections" add constraint "oauth_connections_grant_id_unique" unique ("grant_id");`);
    this.addSql(`create index "oauth_connections_user_id_index" on "oauth_connections" ("user_id");`);

    this.addSql(`create table "memberships" ("id" text not null, "organization_id" text not null, "user_id" text not null, "role" text check ("role" in ('owner', 'admin', 'member', 'viewer')) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "memberships_pkey" primary key ("id"));`);
    this.addSql(`alter table "memberships" add constraint "memberships_organization_id_user_id_unique" unique ("organization_id", "user_id");`);

    this.addSql(`create table "workspaces" ("id" text not null, "organization_id" text not null, "name" text not null, "store_trace_content" boolean not null default true, "rate_limit_per_minute" int null, "monthly_spend_quota_micro_usd" bigint null, "storage_allowance_bytes" bigint null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "workspaces_pkey" primary key ("id"));`);

    this.addSql(`create table "provider_credentials" ("id" text not null, "workspace_id" text not null, "provider" text check ("provider" in ('openai', 'mistral', 'openai-compatible')) not null, "encrypted_api_key" text not null, "api_key_hint" text not null, "base_url" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "provider_credentials_pkey" primary key ("id"));`);
    this.addSql(`alter table "provider_credentials" add constraint "provider_credentials_workspace_id_provider_unique" unique ("workspace_id", "provider");`);

    this.addSql(`create table "knowledge_sources" ("id" text not null, "workspace_id" text not null, "name" text not null, "description" text null, "embedding_provider" text not null, "embedding_model" text not null, "embedding_dimensions" int null, "vector_store" text not null default 'postgres', "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "knowledge_sources_pkey" primary key ("id"));`);
    this.addSql(`create index "knowledge_sources_workspace_id_index" on "knowledge_sources" ("workspace_id");`);

    this.addSql(`create table "knowledge_documents" ("id" text not null, "workspace_id" text not null, "source_id" text not null, "filename" text not null, "content_type" text not null, "byte_size" int not null, "storage_key" text not null, "status" text check ("status" in ('PENDING', 'PROCESSING', 'READY', 'FAILED')) not null default 'PENDING', "failure_reason" text null, "chunk_count" int not null default 0, "attempts" int not null default 0, "uploaded_at" timestamptz null, "processing_started_at" timestamptz null, "processed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "knowledge_documents_pkey" primary key ("id"));`);
    this.addSql(`create index "knowledge_documents_source_id_id_index" on "knowledge_documents" ("source_id", "id");`);
    this.addSql(`create index "knowledge_documents_workspace_id_index" on "knowledge_documents" ("workspace_id");`);
    this.addSql(`create index "knowledge_documents_status_processing_started_at_index" on "knowledge_documents" ("status", "processing_started_at");`);

    this.addSql(`create table "knowledge_chunks" ("id" text not null, "workspace_id" text not null, "source_id" text not null, "document_id" text not null, "ordinal" int not null, "text" text not null, "token_count" int not null, "location" jsonb not null, "embedding" bytea null, "search_vector" tsvector generated always as (to_tsvector('english', text)) stored null, "created_at" timestamptz not null, constraint "knowledge_chunks_pkey" primary key ("id"));`);
    this.addSql(`create index "knowledge_chunks_source_id_index" on "knowledge_chunks" ("source_id");`);
    this.addSql(`create index "knowledge_chunks_search_vector_index" on "public"."knowledge_chunks" using gin("search_vector");`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_document_id_ordinal_unique" unique ("document_id", "ordinal");`);

    this.addSql(`create table "evaluation_datasets" ("id" text not null, "workspace_id" text not null, "name" text not null, "description" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "evaluation_datasets_pkey" primary key ("id"));`);

    this.addSql(`create table "evaluation_cases" ("id" text not null, "workspace_id" text not null, "dataset_id" text not null, "input" text not null, "variables" jsonb not null default '{}', "expected_output" text null, "created_at" timestamptz not null, constraint "evaluation_cases_pkey" primary key ("id"));`);

    this.addSql(`create table "environments" ("id" text not null, "workspace_id" text not null, "slug" text not null, "name" text not null, "description" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "environments_pkey" primary key ("id"));`);
    this.addSql(`alter table "environments" add constraint "environments_workspace_id_slug_unique" unique ("workspace_id", "slug");`);

    this.addSql(`create table "assistants" ("id" text not null, "workspace_id" text not null, "slug" text not null, "name" text not null, "description" text null, "archived_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "assistants_pkey" primary key ("id"));`);
    this.addSql(`alter table "assistants" add constraint "assistants_workspace_id_slug_unique" unique ("workspace_id", "slug");`);

    this.addSql(`create table "assistant_versions" ("id" text not null, "workspace_id" text not null, "assistant_id" text not null, "version" int not null, "config" jsonb not null, "note" text null, "created_by_user_id" text null, "created_at" timestamptz not null, constraint "assistant_versions_pkey" primary key ("id"));`);
    this.addSql(`alter table "assistant_versions" add constraint "assistant_versions_assistant_id_version_unique" unique ("assistant_id", "version");`);

    this.addSql(`create table "evaluation_runs" ("id" text not null, "workspace_id" text not null, "dataset_id" text not null, "assistant_id" text not null, "version_id" text not null, "status" text check ("status" in ('queued', 'running', 'completed', 'failed')) not null default 'queued', "summary" jsonb null, "created_by_user_id" text null, "started_at" timestamptz null, "finished_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "evaluation_runs_pkey" primary key ("id"));`);

    this.addSql(`create table "evaluation_results" ("id" text not null, "workspace_id" text not null, "run_id" text not null, "evaluation_case_id" text not null, "output" text null, "score" double precision null, "passed" boolean null, "error" text null, "trace" text null, "created_at" timestamptz not null, constraint "evaluation_results_pkey" primary key ("id"));`);
    this.addSql(`alter table "evaluation_results" add constraint "evaluation_results_run_id_evaluation_case_id_unique" unique ("run_id", "evaluation_case_id");`);

    this.addSql(`create table "deployment_events" ("id" text not null, "workspace_id" text not null, "assistant_id" text not null, "environment_id" text not null, "version_id" text not null, "previous_version_id" text null, "action" text check ("action" in ('publish', 'rollback')) not null, "actor_user_id" text null, "created_at" timestamptz not null, constraint "deployment_events_pkey" primary key ("id"));`);
    this.addSql(`create index "deployment_events_assistant_id_environment_id_created_at_index" on "deployment_events" ("assistant_id", "environment_id", "created_at");`);

    this.addSql(`create table "deployments" ("id" text not null, "workspace_id" text not null, "assistant_id" text not null, "environment_id" text not null, "version_id" text not null, "deployed_by_user_id" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "deployments_pkey" primary key ("id"));`);
    this.addSql(`alter table "deployments" add constraint "deployments_assistant_id_environment_id_unique" unique ("assistant_id", "environment_id");`);

    this.addSql(`create table "assistant_drafts" ("id" text not null, "assistant_id" text not null, "config" jsonb not null, "updated_by_user_id" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "assistant_drafts_pkey" primary key ("id"));`);
    this.addSql(`alter table "assistant_drafts" add constraint "assistant_drafts_assistant_id_unique" unique ("assistant_id");`);

    this.addSql(`create table "api_keys" ("id" text not null, "workspace_id" text not null, "name" text not null, "key_hash" text not null, "key_prefix" text not null, "scopes" text[] not null, "created_by_user_id" text null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_keys_workspace_id_index" on "api_keys" ("workspace_id");`);

    this.addSql(`alter table "oauth_connections" add constraint "oauth_connections_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "oauth_connections" add constraint "oauth_connections_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "memberships" add constraint "memberships_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "workspaces" add constraint "workspaces_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "provider_credentials" add constraint "provider_credentials_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "knowledge_sources" add constraint "knowledge_sources_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "knowledge_documents" add constraint "knowledge_documents_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_documents" add constraint "knowledge_documents_source_id_foreign" foreign key ("source_id") references "knowledge_sources" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_source_id_foreign" foreign key ("source_id") references "knowledge_sources" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "knowledge_chunks" add constraint "knowledge_chunks_document_id_foreign" foreign key ("document_id") references "knowledge_documents" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "evaluation_datasets" add constraint "evaluation_datasets_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "evaluation_cases" add constraint "evaluation_cases_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_cases" add constraint "evaluation_cases_dataset_id_foreign" foreign key ("dataset_id") references "evaluation_datasets" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "environments" add constraint "environments_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "assistants" add constraint "assistants_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "assistant_versions" add constraint "assistant_versions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "assistant_versions" add constraint "assistant_versions_assistant_id_foreign" foreign key ("assistant_id") references "assistants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "assistant_versions" add constraint "assistant_versions_created_by_user_id_foreign" foreign key ("created_by_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_dataset_id_foreign" foreign key ("dataset_id") references "evaluation_datasets" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_assistant_id_foreign" foreign key ("assistant_id") references "assistants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_version_id_foreign" foreign key ("version_id") references "assistant_versions" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_created_by_user_id_foreign" foreign key ("created_by_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "evaluation_results" add constraint "evaluation_results_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_results" add constraint "evaluation_results_run_id_foreign" foreign key ("run_id") references "evaluation_runs" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "evaluation_results" add constraint "evaluation_results_evaluation_case_id_foreign" foreign key ("evaluation_case_id") references "evaluation_cases" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "deployment_events" add constraint "deployment_events_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployment_events" add constraint "deployment_events_assistant_id_foreign" foreign key ("assistant_id") references "assistants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployment_events" add constraint "deployment_events_environment_id_foreign" foreign key ("environment_id") references "environments" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployment_events" add constraint "deployment_events_version_id_foreign" foreign key ("version_id") references "assistant_versions" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "deployment_events" add constraint "deployment_events_previous_version_id_foreign" foreign key ("previous_version_id") references "assistant_versions" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "deployment_events" add constraint "deployment_events_actor_user_id_foreign" foreign key ("actor_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "deployments" add constraint "deployments_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployments" add constraint "deployments_assistant_id_foreign" foreign key ("assistant_id") references "assistants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployments" add constraint "deployments_environment_id_foreign" foreign key ("environment_id") references "environments" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployments" add constraint "deployments_version_id_foreign" foreign key ("version_id") references "assistant_versions" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "deployments" add constraint "deployments_deployed_by_user_id_foreign" foreign key ("deployed_by_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "assistant_drafts" add constraint "assistant_drafts_assistant_id_foreign" foreign key ("assistant_id") references "assistants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "assistant_drafts" add constraint "assistant_drafts_updated_by_user_id_foreign" foreign key ("updated_by_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_created_by_user_id_foreign" foreign key ("created_by_user_id") references "users" ("id") on update cascade on delete set null;`);
    // Published versions are frozen snapshots (spec, Versioning): refuse updates at the database too.
    this.addSql(`create function assistant_versions_immutable() returns trigger language plpgsql as $$ begin raise exception 'assistant versions are immutable'; end $$;`);
    this.addSql(`create trigger assistant_versions_no_update before update on "assistant_versions" for each row execute function assistant_versions_immutable();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists assistant_versions_no_update on "assistant_versions";`);
    this.addSql(`drop function if exists assistant_versions_immutable();`);
    this.addSql(`alter table "oauth_connections" drop constraint "oauth_connections_organization_id_foreign";`);

    this.addSql(`alter table "memberships" drop constraint "memberships_organization_id_foreign";`);

    this.addSql(`alter table "workspaces" drop constraint "workspaces_organization_id_foreign";`);

    this.addSql(`alter table "oauth_connections" drop constraint "oauth_connections_user_id_foreign";`);

    this.addSql(`alter table "memberships" drop constraint "memberships_user_id_foreign";`);

    this.addSql(`alter table "assistant_versions" drop constraint "assistant_versions_created_by_user_id_foreign";`);

    this.addSql(`alter table "evaluation_runs" drop constraint "evaluation_runs_created_by_user_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_actor_user_id_foreign";`);

    this.addSql(`alter table "deployments" drop constraint "deployments_deployed_by_user_id_foreign";`);

    this.addSql(`alter table "assistant_drafts" drop constraint "assistant_drafts_updated_by_user_id_foreign";`);

    this.addSql(`alter table "api_keys" drop constraint "api_keys_created_by_user_id_foreign";`);

    this.addSql(`alter table "provider_credentials" drop constraint "provider_credentials_workspace_id_foreign";`);

    this.addSql(`alter table "knowledge_sources" drop constraint "knowledge_sources_workspace_id_foreign";`);

    this.addSql(`alter table "knowledge_documents" drop constraint "knowledge_documents_workspace_id_foreign";`);

    this.addSql(`alter table "knowledge_chunks" drop constraint "knowledge_chunks_workspace_id_foreign";`);

    this.addSql(`alter table "evaluation_datasets" drop constraint "evaluation_datasets_workspace_id_foreign";`);

    this.addSql(`alter table "evaluation_cases" drop constraint "evaluation_cases_workspace_id_foreign";`);

    this.addSql(`alter table "environments" drop constraint "environments_workspace_id_foreign";`);

    this.addSql(`alter table "assistants" drop constraint "assistants_workspace_id_foreign";`);

    this.addSql(`alter table "assistant_versions" drop constraint "assistant_versions_workspace_id_foreign";`);

    this.addSql(`alter table "evaluation_runs" drop constraint "evaluation_runs_workspace_id_foreign";`);

    this.addSql(`alter table "evaluation_results" drop constraint "evaluation_results_workspace_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_workspace_id_foreign";`);

    this.addSql(`alter table "deployments" drop constraint "deployments_workspace_id_foreign";`);

    this.addSql(`alter table "api_keys" drop constraint "api_keys_workspace_id_foreign";`);

    this.addSql(`alter table "knowledge_documents" drop constraint "knowledge_documents_source_id_foreign";`);

    this.addSql(`alter table "knowledge_chunks" drop constraint "knowledge_chunks_source_id_foreign";`);

    this.addSql(`alter table "knowledge_chunks" drop constraint "knowledge_chunks_document_id_foreign";`);

    this.addSql(`alter table "evaluation_cases" drop constraint "evaluation_cases_dataset_id_foreign";`);

    this.addSql(`alter table "evaluation_runs" drop constraint "evaluation_runs_dataset_id_foreign";`);

    this.addSql(`alter table "evaluation_results" drop constraint "evaluation_results_evaluation_case_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_environment_id_foreign";`);

    this.addSql(`alter table "deployments" drop constraint "deployments_environment_id_foreign";`);

    this.addSql(`alter table "assistant_versions" drop constraint "assistant_versions_assistant_id_foreign";`);

    this.addSql(`alter table "evaluation_runs" drop constraint "evaluation_runs_assistant_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_assistant_id_foreign";`);

    this.addSql(`alter table "deployments" drop constraint "deployments_assistant_id_foreign";`);

    this.addSql(`alter table "assistant_drafts" drop constraint "assistant_drafts_assistant_id_foreign";`);

    this.addSql(`alter table "evaluation_runs" drop constraint "evaluation_runs_version_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_version_id_foreign";`);

    this.addSql(`alter table "deployment_events" drop constraint "deployment_events_previous_version_id_foreign";`);

    this.addSql(`alter table "deployments" drop constraint "deployments_version_id_foreign";`);

    this.addSql(`alter table "evaluation_results" drop constraint "evaluation_results_run_id_foreign";`);

    this.addSql(`drop table if exists "audit_events" cascade;`);

    this.addSql(`drop table if exists "idempotency_records" cascade;`);

    this.addSql(`drop table if exists "oauth_records" cascade;`);

    this.addSql(`drop table if exists "organizations" cascade;`);

    this.addSql(`drop table if exists "traces" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "oauth_connections" cascade;`);

    this.addSql(`drop table if exists "memberships" cascade;`);

    this.addSql(`drop table if exists "workspaces" cascade;`);

    this.addSql(`drop table if exists "provider_credentials" cascade;`);

    this.addSql(`drop table if exists "knowledge_sources" cascade;`);

    this.addSql(`drop table if exists "knowledge_documents" cascade;`);

    this.addSql(`drop table if exists "knowledge_chunks" cascade;`);

    this.addSql(`drop table if exists "evaluation_datasets" cascade;`);

    this.addSql(`drop table if exists "evaluation_cases" cascade;`);

    this.addSql(`drop table if exists "environments" cascade;`);

    this.addSql(`drop table if exists "assistants" cascade;`);

    this.addSql(`drop table if exists "assistant_versions" cascade;`);

    this.addSql(`drop table if exists "evaluation_runs" cascade;`);

    this.addSql(`drop table if exists "evaluation_results" cascade;`);

    this.addSql(`drop table if exists "deployment_events" cascade;`);

    this.addSql(`drop table if exists "deployments" cascade;`);

    this.addSql(`drop table if exists "assistant_drafts" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);
  }

}
