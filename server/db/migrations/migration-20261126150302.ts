import { Migration } from '@mikro-orm/migrations';

export class Migration20261126150302 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop table if exists "oauth_page_sessions" cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create table "oauth_page_sessions" ("id" text not null, "user_id" text not null, "expires_at" timestamptz(6) not null, "created_at" timestamptz(6) not null, constraint "oauth_page_sessions_pkey" primary key ("id"));`);
    this.addSql(`create index "oauth_page_sessions_expires_at_index" on "oauth_page_sessions" ("expires_at");`);

    this.addSql(`alter table "oauth_page_sessions" add constraint "oauth_page_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

}
