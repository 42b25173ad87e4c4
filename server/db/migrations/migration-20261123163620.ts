import { Migration } from '@mikro-orm/migrations';

export class Migration20261123163620 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "knowledge_documents" add column "ingestion_slot" int null;`);
    this.addSql(`create index "knowledge_documents_pending_ingestion_slot_index" on "knowledge_documents" ("source_id", "ingestion_slot") where "status" = 'PENDING';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "knowledge_documents_pending_ingestion_slot_index";`);
    this.addSql(`alter table "knowledge_documents" drop column "ingestion_slot";`);
  }

}
