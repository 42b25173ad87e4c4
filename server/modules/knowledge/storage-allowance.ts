import type { EntityManager } from "@mikro-orm/postgresql";
import { WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";

/**
 * Refuses a new document that would take the workspace past its allowance. Called inside the
 * creating transaction with the workspace row locked, so concurrent uploads cannot both squeeze in.
 */
export async function ensureStorageAllowance(tx: EntityManager, input: { workspaceId: string; addedBytes: number; defaultAllowanceBytes: number }): Promise<void> {
	await tx.getConnection().execute("select id from workspaces where id = ? for update", [input.workspaceId], "all", tx.getTransactionContext());
	const workspace = await tx.findOneOrFail(WorkspaceSchema, { id: input.workspaceId });
	const allowance = workspace.storageAllowanceBytes ?? input.defaultAllowanceBytes;
	const [row]: { used: string | null }[] = await tx
		.getConnection()
		.execute("select sum(byte_size) as used from knowledge_documents where workspace_id = ?", [input.workspaceId], "all", tx.getTransactionContext());
	const used = Number(row?.used ?? 0);
	if (used + input.addedBytes > allowance) {
		throw new AppError(
			"STORAGE_QUOTA_EXCEEDED",
			`This document (${input.addedBytes} bytes) would exceed the workspace's knowledge storage allowance (${used} of ${allowance} bytes used)`,
		);
	}
}
