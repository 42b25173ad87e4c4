import { Migration } from '@mikro-orm/migrations';

export class Migration20261123032310 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "rate_limit_windows" ("subject" text not null, "window_start" timestamptz not null, "request_count" int not null default 0, constraint "rate_limit_windows_pkey" primary key ("subject", "window_start"));`);
    this.addSql(`create index "rate_limit_windows_window_start_index" on "rate_limit_windows" ("window_start");`);
    // Counters are rewritten on every request and worthless after a crash: unlogged tables skip
    // the WAL, so these commits do not wait for a disk flush.
    this.addSql(`alter table "rate_limit_windows" set unlogged;`);
    // Runtime processes cache provider clients per credential; whatever code path (server, CLI, a
    // later MCP tool) writes or deletes a credential, this tells every process at commit.
    this.addSql(`create function provider_credentials_notify() returns trigger language plpgsql as $$ begin perform pg_notify('provider_credential_changed', coalesce(new.workspace_id, old.workspace_id)); return null; end $$;`);
    this.addSql(`create trigger provider_credentials_changed after insert or update or delete on "provider_credentials" for each row execute function provider_credentials_notify();`);

    this.addSql(`create table "workspace_monthly_spend" ("workspace" text not null, "month" date not null, "cost_micro_usd" bigint not null default 0, constraint "workspace_monthly_spend_pkey" primary key ("workspace", "month"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists provider_credentials_changed on "provider_credentials";`);
    this.addSql(`drop function if exists provider_credentials_notify();`);
    this.addSql(`drop table if exists "rate_limit_windows" cascade;`);

    this.addSql(`drop table if exists "workspace_monthly_spend" cascade;`);
  }

}
