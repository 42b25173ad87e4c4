import { AppError } from "./app-error";

export interface Page<T> {
	data: T[];
	hasMore: boolean;
	nextCursor: string | null;
}

/** Cursors are opaque to clients: the last id of the page, base64url-encoded. */
export function encodeCursor(lastId: string): string {
	return Buffer.from(lastId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined): string | undefined {
	if (cursor === undefined) return undefined;
	const id = Buffer.from(cursor, "base64url").toString("utf8");
	if (!/^[a-z]+_[0-9A-Z]{26}$/.test(id)) throw AppError.validation([{ field: "cursor", issue: "Not a cursor returned by this API" }]);
	return id;
}

/** Callers fetch limit + 1 rows, newest first; the extra row only tells whether a next page exists. */
export function toPage<Row extends { id: string }, T>(rows: Row[], limit: number, present: (row: Row) => T): Page<T> {
	const hasMore = rows.length > limit;
	const pageRows = hasMore ? rows.slice(0, limit) : rows;
	return {
		data: pageRows.map(present),
		hasMore,
		nextCursor: hasMore ? encodeCursor(pageRows[pageRows.length - 1].id) : null,
	};
}
