import { ERROR_CODES, ERROR_DESCRIPTIONS } from "../errors";
import { z } from "../zod";

/** Largest accepted request body (spec, Limits: "a limit exists"); beyond it 413 PAYLOAD_TOO_LARGE. 8 MiB leaves room for a 5 MiB direct upload in base64. */
export const REQUEST_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

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
		fields: z.array(ZFieldIssue).optional().openapi({ description: "Present only for VALIDATION_ERROR." }),
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
