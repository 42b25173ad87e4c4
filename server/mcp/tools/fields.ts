import { z } from "zod";

// Shared with the use cases' inputs, where they are defined once (contract/inputs).
export { assistantSlug, environmentSlug, workspaceId } from "../../../contract/inputs/common";
export { variables } from "../../../contract/inputs/assistants";

/**
 * Argument and result schemas shared by many tools, each described for the model choosing values.
 *
 * Every tool schema must stay portable (test/mcp/schema-portability.test.ts applies the MCP
 * Inspector's checks to what tools/list sends): no `type` arrays, no schema that accepts anything,
 * no `$ref`. The MCP SDK writes them with zod-to-json-schema, hence three habits here:
 * `nullable()` below instead of zod's `.nullable()` on a plain string, number or boolean; `jsonObject()`
 * instead of `z.record(z.unknown())`; and a fresh schema (a function) wherever one tool uses the same
 * field twice, since a zod instance met a second time is written as a `$ref` to the first.
 */
export { organizationId } from "../../../contract/inputs/fields";
export const timestamp = () => z.string().describe("ISO-8601 UTC");

export const deleted = { deleted: z.literal(true).describe("Always true: it is gone") };

/**
 * `schema` or null, written `anyOf: [{type: "string"}, {type: "null"}]`. zod-to-json-schema writes
 * `.nullable()` of a plain string or number as `type: ["string", "null"]`, which clients that
 * map tool schemas onto a single-type dialect (Gemini's function declarations) reject; through
 * `readonly()`, which changes nothing for a primitive, it writes the anyOf form instead.
 */
export function nullable(schema: z.ZodString): z.ZodNullable<z.ZodReadonly<z.ZodString>>;
export function nullable(schema: z.ZodNumber): z.ZodNullable<z.ZodReadonly<z.ZodNumber>>;
export function nullable(schema: z.ZodString | z.ZodNumber): z.ZodTypeAny {
	return schema.readonly().nullable();
}

/** Any JSON object: `{type: "object", additionalProperties: true}` (a record of `z.unknown()` would leave its values untyped). */
export const jsonObject = () => z.object({}).passthrough();
