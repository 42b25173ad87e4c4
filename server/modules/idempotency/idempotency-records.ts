import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "../../shared/app-error";
import { sha256Hex } from "../../shared/crypto";
import { newId } from "../../shared/ids";

/** Stored answers are replayed for 24 hours (contract, ZIdempotencyHeaders), as Stripe's are. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
	status: number;
	headers: Record<string, string>;
	body: string;
}

export type IdempotencyClaim = { kind: "claimed"; recordId: string } | { kind: "replay"; response: StoredResponse };

/** What makes two requests "the same": method, path and body, so a key reused elsewhere is a conflict. */
export function hashIdempotentRequest(method: string, path: string, body: unknown): string {
	return sha256Hex(`${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`);
}

type RecordRow = { id: string; request_hash: string; state: string; response_status: number | null; response_headers: Record<string, string> | null; response_body: string | null; expired: boolean };

/**
 * Insert-first: the unique (workspace, key) constraint decides which of two concurrent requests
 * runs, so a request is never run twice; the loser sees the winner's row and answers from it.
 */
export async function claimIdempotencyKey(em: EntityManager, input: { workspaceId: string; key: string; requestHash: string }): Promise<IdempotencyClaim> {
	const connection = em.getConnection();
	for (let attempt = 0; attempt < 2; attempt++) {
		const inserted: { id: string }[] = await connection.execute(
			`insert into idempotency_records (id, workspace, key, request_hash, state, expires_at, created_at)
			 values (?, ?, ?, ?, 'running', now() + (? * interval '1 millisecond'), now())
			 on conflict (workspace, key) do nothing returning id`,
			[newId("idem"), input.workspaceId, input.key, input.requestHash, IDEMPOTENCY_TTL_MS],
		);
		if (inserted[0]) return { kind: "claimed", recordId: inserted[0].id };
		const rows: RecordRow[] = await connection.execute(
			"select id, request_hash, state, response_status, response_headers, response_body, expires_at < now() as expired from idempotency_records where workspace = ? and key = ?",
			[input.workspaceId, input.key],
		);
		const existing = rows[0];
		// Released between our insert and select: try the insert again.
		if (!existing) continue;
		if (existing.expired) {
			await connection.execute("delete from idempotency_records where id = ? and expires_at < now()", [existing.id]);
			continue;
		}
		if (existing.request_hash !== input.requestHash) {
			throw new AppError("IDEMPOTENCY_KEY_CONFLICT", "This Idempotency-Key was already used with a different request; use a new key for a new request");
		}
		if (existing.state !== "completed" || existing.response_status === null) {
			throw new AppError("IDEMPOTENCY_KEY_CONFLICT", "A request with this Idempotency-Key is still in progress; retry after it finishes");
		}
		return { kind: "replay", response: { status: existing.response_status, headers: existing.response_headers ?? {}, body: existing.response_body ?? "" } };
	}
	throw new AppError("IDEMPOTENCY_KEY_CONFLICT", "A request with this Idempotency-Key is still in progress; retry after it finishes");
}

export async function completeIdempotencyKey(em: EntityManager, recordId: string, response: StoredResponse): Promise<void> {
	await em
		.getConnection()
		.execute("update idempotency_records set state = 'completed', response_status = ?, response_headers = ?, response_body = ? where id = ?", [
			response.status,
			JSON.stringify(response.headers),
			response.body,
			recordId,
		]);
}

/** A first attempt that failed on our side (5xx) or never finished frees its key so a retry can run. */
export async function releaseIdempotencyKey(em: EntityManager, recordId: string): Promise<void> {
	await em.getConnection().execute("delete from idempotency_records where id = ?", [recordId]);
}
