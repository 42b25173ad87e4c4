import { Migration } from '@mikro-orm/migrations';

export class Migration20261123160545 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "evaluation_runs" drop constraint if exists "evaluation_runs_status_check";`);

    this.addSql(`alter table "evaluation_datasets" add column "deleted_at" timestamptz null;`);
    this.addSql(`create index "evaluation_datasets_workspace_id_created_at_index" on "evaluation_datasets" ("workspace_id", "created_at");`);

    this.addSql(`alter table "evaluation_cases" add column "messages" jsonb null, add column "scorers" jsonb not null default '[]', add column "replaces_case" text null, add column "deleted_at" timestamptz null;`);
    this.addSql(`alter table "evaluation_cases" alter column "input" type text using ("input"::text);`);
    this.addSql(`alter table "evaluation_cases" alter column "input" drop not null;`);
    this.addSql(`create index "evaluation_cases_dataset_id_created_at_index" on "evaluation_cases" ("dataset_id", "created_at");`);

    this.addSql(`alter table "evaluation_runs" add column "target" jsonb not null, add column "config" jsonb not null, add column "case_ids" jsonb not null, add column "concurrency" int not null default 4, add column "failure_reason" text null, add column "principal" jsonb not null, add column "lease_token" text null, add column "lease_expires_at" timestamptz null, add column "attempts" int not null default 0;`);
    this.addSql(`alter table "evaluation_runs" alter column "version_id" type text using ("version_id"::text);`);
    this.addSql(`alter table "evaluation_runs" alter column "version_id" drop not null;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_status_check" check("status" in ('queued', 'running', 'completed', 'failed', 'cancelled'));`);
    this.addSql(`alter table "evaluation_runs" rename column "summary" to "aggregates";`);
    this.addSql(`create index "evaluation_runs_workspace_id_created_at_index" on "evaluation_runs" ("workspace_id", "created_at");`);
    this.addSql(`create index "evaluation_runs_status_lease_expires_at_index" on "evaluation_runs" ("status", "lease_expires_at");`);

    this.addSql(`alter table "evaluation_results" add column "status" text check ("status" in ('passed', 'failed', 'errored')) not null, add column "scores" jsonb not null default '[]', add column "latency_ms" int null, add column "input_tokens" int not null default 0, add column "output_tokens" int not null default 0, add column "total_tokens" int not null default 0, add column "cost_micro_usd" bigint not null default 0;`);
    this.addSql(`alter table "evaluation_results" alter column "passed" type boolean using ("passed"::boolean);`);
    this.addSql(`alter table "evaluation_results" alter column "passed" set default false;`);
    this.addSql(`alter table "evaluation_results" alter column "passed" set not null;`);

    // Cases are immutable: a run reads them while others edit (which adds a replacing case); only the soft delete may change a row.
    this.addSql(`create function evaluation_cases_immutable() returns trigger language plpgsql as $$ begin if (to_jsonb(new) - 'deleted_at') is distinct from (to_jsonb(old) - 'deleted_at') then raise exception 'evaluation cases are immutable'; end if; return new; end $$;`);
    this.addSql(`create trigger evaluation_cases_no_update before update on "evaluation_cases" for each row execute function evaluation_cases_immutable();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists evaluation_cases_no_update on "evaluation_cases";`);
    this.addSql(`drop function if exists evaluation_cases_immutable();`);
    this.addSql(`alter table "evaluation_runs" drop constraint if exists "evaluation_runs_status_check";`);

    this.addSql(`drop index "evaluation_cases_dataset_id_created_at_index";`);
    this.addSql(`alter table "evaluation_cases" drop column "messages", drop column "scorers", drop column "replaces_case", drop column "deleted_at";`);

    this.addSql(`alter table "evaluation_cases" alter column "input" type text using ("input"::text);`);
    this.addSql(`alter table "evaluation_cases" alter column "input" set not null;`);

    this.addSql(`drop index "evaluation_datasets_workspace_id_created_at_index";`);
    this.addSql(`alter table "evaluation_datasets" drop column "deleted_at";`);

    this.addSql(`alter table "evaluation_results" drop column "status", drop column "scores", drop column "latency_ms", drop column "input_tokens", drop column "output_tokens", drop column "total_tokens", drop column "cost_micro_usd";`);

    this.addSql(`alter table "evaluation_results" alter column "passed" drop default;`);
    this.addSql(`alter table "evaluation_results" alter column "passed" type bool using ("passed"::bool);`);
    this.addSql(`alter table "evaluation_results" alter column "passed" drop not null;`);

    this.addSql(`drop index "evaluation_runs_workspace_id_created_at_index";`);
    this.addSql(`drop index "evaluation_runs_status_lease_expires_at_index";`);
    this.addSql(`alter table "evaluation_runs" drop column "target", drop column "config", drop column "case_ids", drop column "concurrency", drop column "failure_reason", drop column "principal", drop column "lease_token", drop column "lease_expires_at", drop column "attempts";`);

    this.addSql(`alter table "evaluation_runs" alter column "version_id" type text using ("version_id"::text);`);
    this.addSql(`alter table "evaluation_runs" alter column "version_id" set not null;`);
    this.addSql(`alter table "evaluation_runs" add constraint "evaluation_runs_status_check" check("status" in ('queued', 'running', 'completed', 'failed'));`);
    this.addSql(`alter table "evaluation_runs" rename column "aggregates" to "summary";`);
  }

}
