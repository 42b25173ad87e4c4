import { Migration } from '@mikro-orm/migrations';

export class Migration20261123114004 extends Migration {

  override async up(): Promise<void> {
    // Every earlier trace was an API key's.
    this.addSql(`alter table "traces" add column "principal_type" text not null default 'api_key', add column "principal_id" text null;`);
    this.addSql(`update "traces" set "principal_id" = "api_key";`);
    this.addSql(`alter table "traces" alter column "principal_type" drop default;`);
    // The audit log is append-only, whoever connects: the same guard as immutable assistant versions.
    this.addSql(`create function audit_events_append_only() returns trigger language plpgsql as $$ begin raise exception 'audit events are append-only'; end $$;`);
    this.addSql(`create trigger audit_events_no_change before update or delete on "audit_events" for each row execute function audit_events_append_only();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists audit_events_no_change on "audit_events";`);
    this.addSql(`drop function if exists audit_events_append_only();`);
    this.addSql(`alter table "traces" drop column "principal_type", drop column "principal_id";`);
  }

}
