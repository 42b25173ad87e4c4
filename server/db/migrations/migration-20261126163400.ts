import { Migration } from '@mikro-orm/migrations';

export class Migration20261126163400 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create index "traces_workspace_assistant_created_at_index" on "traces" ("workspace", "assistant", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "traces_workspace_assistant_created_at_index";`);
  }

}
