import type { EntityManager } from "@mikro-orm/postgresql";
import type { SecretBox } from "../../shared/crypto";

/**
 * The decrypted values of the named secrets of a workspace, for a tool call about to be sent:
 * they live in memory for the call only. Names not found are left out (the caller says which).
 */
export async function readSecrets(em: EntityManager, secrets: SecretBox, workspaceId: string, names: string[]): Promise<Map<string, string>> {
	if (names.length === 0) return new Map();
	const rows: { name: string; encrypted_value: string }[] = await em
		.getConnection()
		.execute("select name, encrypted_value from workspace_secrets where workspace_id = ? and name in (?)", [workspaceId, names]);
	return new Map(rows.map((row) => [row.name, secrets.decrypt(row.encrypted_value)]));
}
