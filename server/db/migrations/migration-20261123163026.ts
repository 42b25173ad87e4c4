import { Migration } from '@mikro-orm/migrations';

export class Migration20261123163026 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "oauth_signing_keys" ("id" text not null, "encrypted_private_jwk" text not null, "retired_at" timestamptz null, "created_at" timestamptz not null, constraint "oauth_signing_keys_pkey" primary key ("id"));`);

    this.addSql(`create table "sign_in_failures" ("id" text not null, "failures" int not null, "window_started_at" timestamptz not null, constraint "sign_in_failures_pkey" primary key ("id"));`);

    this.addSql(`create index "oauth_records_uid_index" on "oauth_records" ("uid");`);
    this.addSql(`create index "oauth_records_expires_at_index" on "oauth_records" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "oauth_signing_keys" cascade;`);

    this.addSql(`drop table if exists "sign_in_failures" cascade;`);

    this.addSql(`drop index "oauth_records_uid_index";`);
    this.addSql(`drop index "oauth_records_expires_at_index";`);
  }

}
