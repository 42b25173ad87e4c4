import { Migration } from '@mikro-orm/migrations';

export class Migration20261128071738 extends Migration {

  override async up(): Promise<void> {
    // Search ranks lexemes in its own per-source index; the GIN index only cost ingestion CPU and disk.
    this.addSql(`drop index if exists "knowledge_chunks_search_vector_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "knowledge_chunks_search_vector_index" on "knowledge_chunks" using gin ("search_vector");`);
  }

}
