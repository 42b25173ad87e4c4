import type { EntityProperty } from "@mikro-orm/core";

/**
 * Column helpers shared by every entity schema. They return the loose property type on purpose:
 * each schema is checked against its entity interface where it is declared.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Column = any;
type Options = Partial<EntityProperty>;

export const idColumn: Column = { type: "string", columnType: "text", primary: true };

export const timestamp = (options: Options = {}): Column => ({ type: "Date", columnType: "timestamptz", ...options }) as Column;

export const createdAtColumn = timestamp({ onCreate: () => new Date() });
export const updatedAtColumn = timestamp({ onCreate: () => new Date(), onUpdate: () => new Date() });

export const text = (options: Options = {}): Column => ({ type: "string", columnType: "text", ...options }) as Column;
export const nullableText = (options: Options = {}): Column => text({ nullable: true, ...options });
export const json = (options: Options = {}): Column => ({ type: "json", columnType: "jsonb", ...options }) as Column;

/** A foreign key held as its id (string) on the entity, with a real FK constraint in the schema. */
export const reference = (entity: () => unknown, options: Options = {}): Column =>
	({ kind: "m:1", entity, mapToPk: true, deleteRule: "cascade", ...options }) as Column;
