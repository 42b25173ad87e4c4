import { Migration } from '@mikro-orm/migrations';

export class Migration20261126134320 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "oauth_registration_windows" ("id" text not null, "registrations" int not null, "window_started_at" timestamptz not null, constraint "oauth_registration_windows_pkey" primary key ("id"));`);

    this.addSql(`create table "oauth_page_sessions" ("id" text not null, "user_id" text not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, constraint "oauth_page_sessions_pkey" primary key ("id"));`);
    this.addSql(`create index "oauth_page_sessions_expires_at_index" on "oauth_page_sessions" ("expires_at");`);

    this.addSql(`alter table "oauth_page_sessions" add constraint "oauth_page_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`create index "oauth_connections_client_id_index" on "oauth_connections" ("client_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "oauth_registration_windows" cascade;`);

    this.addSql(`drop table if exists "oauth_page_sessions" cascade;`);

    this.addSql(`drop index "oauth_connections_client_id_index";`);
  }

}
