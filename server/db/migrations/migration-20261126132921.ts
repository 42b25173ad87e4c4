import { Migration } from '@mikro-orm/migrations';

export class Migration20261126132921 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create index "evaluation_runs_workspace_id_started_at_index" on "evaluation_runs" ("workspace_id", "started_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "evaluation_runs_workspace_id_started_at_index";`);
  }

}
