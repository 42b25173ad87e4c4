import { Migration } from '@mikro-orm/migrations';

export class Migration20261126144321 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "invitations" ("id" text not null, "organization_id" text not null, "email" text not null, "role" text not null, "token_hash" text not null, "invited_by_user_id" text null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "accepted_by_user_id" text null, "revoked_at" timestamptz null, "created_at" timestamptz not null, constraint "invitations_pkey" primary key ("id"));`);
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invitations_organization_id_index" on "invitations" ("organization_id");`);

    this.addSql(`create table "user_sessions" ("id" text not null, "token_hash" text not null, "user_id" text not null, "expires_at" timestamptz not null, "last_seen_at" timestamptz not null, "ended_at" timestamptz null, "user_agent" text null, "client_address" text null, "created_at" timestamptz not null, constraint "user_sessions_pkey" primary key ("id"));`);
    this.addSql(`alter table "user_sessions" add constraint "user_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "user_sessions_user_id_index" on "user_sessions" ("user_id");`);
    this.addSql(`create index "user_sessions_expires_at_index" on "user_sessions" ("expires_at");`);

    this.addSql(`alter table "invitations" add constraint "invitations_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "invitations" add constraint "invitations_invited_by_user_id_foreign" foreign key ("invited_by_user_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_accepted_by_user_id_foreign" foreign key ("accepted_by_user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "user_sessions" add constraint "user_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "invitations" cascade;`);

    this.addSql(`drop table if exists "user_sessions" cascade;`);
  }

}
