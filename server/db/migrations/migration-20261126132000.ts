import { Migration } from '@mikro-orm/migrations';

export class Migration20261126132000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "sign_in_throttles" ("id" text not null, "failures" int not null, "blocked_until" timestamptz not null, "forget_at" timestamptz not null, constraint "sign_in_throttles_pkey" primary key ("id"));`);
    this.addSql(`create index "sign_in_throttles_forget_at_index" on "sign_in_throttles" ("forget_at");`);

    this.addSql(`drop table if exists "sign_in_failures" cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create table "sign_in_failures" ("id" text not null, "failures" int4 not null, "window_started_at" timestamptz(6) not null, constraint "sign_in_failures_pkey" primary key ("id"));`);

    this.addSql(`drop table if exists "sign_in_throttles" cascade;`);
  }

}
