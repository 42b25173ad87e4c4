import { ERROR_CODES, ERROR_DESCRIPTIONS } from "../errors";
import { z } from "../zod";

/** Largest accepted request body (spec, Limits: "a limit exists"); beyond it 413 PAYLOAD_TOO_LARGE. 8 MiB leaves room for a 5 MiB direct upload in base64. */
export const REQUEST_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Text PostgreSQL can store: no NUL (U+0000; `text` and `jsonb` refuse it) and no unpaired UTF-16
 * surrogate (it has no UTF-8 encoding). Every string a client sends (body values and keys, path and
 * query parameters; headers cannot carry either) must be storable; the server checks the whole
 * request with findUnstorableText before any schema, so no field can forget it.
 */
export const UNSTORABLE_TEXT_ISSUE = "Must not contain NUL (U+0000) or an unpaired UTF-16 surrogate";

/** ES2024's String.prototype.isWellFormed (Node 20+), not in the ES2023 library this project compiles against. */
type WellFormedCheck = string & { isWellFormed(): boolean };

export function isStorableText(text: string): boolean {
	return !text.includes("\0") && (text as WellFormedCheck).isWellFormed();
}

/** Past this many offenders the rest are not reported: one is enough to refuse the request. */
const MAX_UNSTORABLE_REPORTED = 20;

interface Container {
	value: object;
	/** Where it stands: its parent container and its key there (none for the root). */
	parent?: Container;
	key?: string | number;
}

/** `key` in `container`, as a path from the root; only built for offenders. */
function pathTo(container: Container, key: string | number): (string | number)[] {
	const path = [key];
	for (let current: Container | undefined = container; current?.parent !== undefined; current = current.parent) path.push(current.key as string | number);
	return path.reverse();
}

/**
 * The path of every string, and of every object key, in `value` that is not storable text (the
 * first 20). Runs on every request, in time linear in the value's size whatever its shape: strings
 * are checked where they stand, containers remember only their parent, and paths are built for
 * offenders alone. Walks with its own stack: parsed JSON can nest deeper than the call stack.
 */
export function findUnstorableText(value: unknown): (string | number)[][] {
	if (typeof value === "string") return isStorableText(value) ? [] : [[]];
	if (typeof value !== "object" || value === null) return [];
	const found: (string | number)[][] = [];
	const pending: Container[] = [{ value }];
	const visit = (item: unknown, container: Container, key: string | number) => {
		if (typeof item === "string") {
			if (!isStorableText(item)) found.push(pathTo(container, key));
		} else if (typeof item === "object" && item !== null) {
			pending.push({ value: item, parent: container, key });
		}
	};
	for (let container = pending.pop(); container !== undefined && found.length < MAX_UNSTORABLE_REPORTED; container = pending.pop()) {
		const current = container.value;
		if (Array.isArray(current)) {
			for (let index = 0; index < current.length; index++) visit(current[index], container, index);
			continue;
		}
		for (const key of Object.keys(current)) {
			if (isStorableText(key)) visit((current as Record<string, unknown>)[key], container, key);
			else found.push(pathTo(container, key));
		}
	}
	return found.slice(0, MAX_UNSTORABLE_REPORTED);
}

export const ZFieldIssue = z
	.object({
		field: z.string().openapi({ example: "config.temperature", description: "Path of the offending value, dotted, with [i] for array items." }),
		issue: z.string().openapi({ example: "Expected number, received string" }),
	})
	.openapi("FieldIssue");

const catalog = ERROR_CODES.map((code) => `- \`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join("\n");

export const ZErrorEnvelope = z
	.object({
		code: z.string().openapi({
			example: "VALIDATION_ERROR",
			description: `Stable code from a closed catalog; branch on it. Clients must accept codes not listed here.\n\n${catalog}`,
		}),
		status: z.number().int().openapi({ example: 400, description: "The HTTP status, repeated." }),
		message: z.string().openapi({ example: "Request body failed validation", description: "Human-readable; not to be matched on." }),
		fields: z
			.array(ZFieldIssue)
			.optional()
			.openapi({
				description: `Present only for VALIDATION_ERROR. Text anywhere in a request (body values and keys, path, query) must not contain NUL (U+0000) nor an unpaired UTF-16 surrogate, which PostgreSQL cannot store: such a field is named with the issue "${UNSTORABLE_TEXT_ISSUE}". (A NUL in a header is refused earlier, by the HTTP parser: 400 INVALID_REQUEST.)`,
			}),
	})
	.openapi("ErrorEnvelope", { description: "The error envelope every non-2xx response uses." });
export type TErrorEnvelope = z.infer<typeof ZErrorEnvelope>;

export const ZDeleted = z
	.object({
		id: z.string(),
		deleted: z.literal(true),
	})
	.openapi("Deleted", { description: "Answer of every DELETE: the id of what was deleted." });

/** Cursor pagination as Stripe does it: `limit` plus an opaque cursor taken from `nextCursor`. */
export const ZListQuery = z
	.object({
		limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "Page size, 1 to 100 (default 20)." }),
		cursor: z.string().min(1).max(200).optional().openapi({ description: "Opaque cursor from the previous page's `nextCursor`." }),
	})
	.strict();

export function listOf<T extends z.ZodTypeAny>(item: T, name: string) {
	return z
		.object({
			data: z.array(item),
			hasMore: z.boolean().openapi({ description: "Whether another page follows." }),
			nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` to get the next page; null on the last page." }),
		})
		.openapi(name, { description: "One page of a list, newest first." });
}

export const ZIdempotencyHeaders = z.object({
	"idempotency-key": z
		.string()
		.min(1)
		.max(255)
		.optional()
		.openapi({
			description:
				"Optional. The same key with the same body within 24 hours replays the first successful response (SSE streams included) without running it again, marked `Idempotent-Replayed: true`; the same key with a different body, or while the first request is still running, is 409 IDEMPOTENCY_KEY_CONFLICT. Errors are not stored: after a failure (including a body that fails validation) the same key runs again. Keys are scoped to the API key's workspace.",
		}),
});

export const ZTimestamp = z.string().datetime().openapi({ example: "2026-11-23T10:00:00.000Z", description: "ISO-8601 UTC" });
