import { Migration } from '@mikro-orm/migrations';

export class Migration20261126171228 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "workspace_secrets" ("id" text not null, "workspace_id" text not null, "name" text not null, "encrypted_value" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "workspace_secrets_pkey" primary key ("id"));`);
    this.addSql(`alter table "workspace_secrets" add constraint "workspace_secrets_workspace_id_name_unique" unique ("workspace_id", "name");`);

    this.addSql(`alter table "workspace_secrets" add constraint "workspace_secrets_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "traces" add column "steps" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "workspace_secrets" cascade;`);

    this.addSql(`alter table "traces" drop column "steps";`);
  }

}
