import { Migration } from '@mikro-orm/migrations';

export class Migration20261123170407 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "knowledge_documents" add column "unfinished_parses" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "knowledge_documents" drop column "unfinished_parses";`);
  }

}
