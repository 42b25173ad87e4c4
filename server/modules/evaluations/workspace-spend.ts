import type { EntityManager } from "@mikro-orm/postgresql";
import { monthOf, type QuotaDefaults } from "../quotas/consume-request-quota";

/**
 * Whether the workspace's monthly spend quota is reached, read from the spend counters (which the
 * trace writer fills within ~200 ms of each generation). Evaluation runs have no API key, so they
 * are held to the workspace's quota here rather than in the request pipeline.
 */
export async function spendQuotaReached(em: EntityManager, workspaceId: string, defaults: QuotaDefaults, now = new Date()): Promise<boolean> {
	const rows: { quota: string | null; spent: string | null }[] = await em.getConnection().execute(
		`select w.monthly_spend_quota_micro_usd as quota, (select s.cost_micro_usd from workspace_monthly_spend s where s.workspace = w.id and s.month = ?) as spent
		 from workspaces w where w.id = ?`,
		[monthOf(now), workspaceId],
	);
	const row = rows[0];
	if (!row) return true;
	const quota = row.quota === null ? defaults.monthlySpendQuotaMicroUsd : Number(row.quota);
	return quota !== null && Number(row.spent ?? 0) >= quota;
}
