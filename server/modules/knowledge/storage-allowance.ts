import type { EntityManager } from "@mikro-orm/postgresql";
import { WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";

/**
 * Refuses a new document that would take the workspace past its allowance: 400 VALIDATION_ERROR on
 * the request field that carries the size (`sizeField`), as for any other size limit. Called inside
 * the creating transaction with the workspace row locked, so concurrent uploads cannot both squeeze in.
 */
export async function ensureStorageAllowance(
	tx: EntityManager,
	input: { workspaceId: string; addedBytes: number; defaultAllowanceBytes: number; sizeField: string },
): Promise<void> {
	// NO KEY UPDATE, not UPDATE: it still serialises uploads to the workspace, but not ingestion's
	// chunk inserts, whose foreign key to the workspace takes KEY SHARE (with FOR UPDATE every
	// document's chunks waited for each upload transaction in the workspace, 110 ms a document).
	await tx.getConnection().execute("select id from workspaces where id = ? for no key update", [input.workspaceId], "all", tx.getTransactionContext());
	const workspace = await tx.findOneOrFail(WorkspaceSchema, { id: input.workspaceId });
	const allowance = workspace.storageAllowanceBytes ?? input.defaultAllowanceBytes;
	const [row]: { used: string | null }[] = await tx
		.getConnection()
		.execute("select sum(byte_size) as used from knowledge_documents where workspace_id = ?", [input.workspaceId], "all", tx.getTransactionContext());
	const used = Number(row?.used ?? 0);
	if (used + input.addedBytes > allowance) {
		throw AppError.validation(
			[{ field: input.sizeField, issue: `${input.addedBytes} bytes would exceed the workspace's knowledge storage allowance (${used} of ${allowance} bytes used)` }],
			"The workspace's knowledge storage allowance would be exceeded; delete documents or ask an operator to raise it",
		);
	}
}
