import { BigIntType, EntitySchema } from "@mikro-orm/core";
import { text, timestamp } from "./base";

/**
 * A fixed one-minute window of requests per API key, incremented atomically by an upsert so that
 * several server instances sharing the database count together.
 */
export interface RateLimitWindow {
	subject: string;
	windowStart: Date;
	requestCount: number;
}
export const RateLimitWindowSchema = new EntitySchema<RateLimitWindow>({
	name: "RateLimitWindow",
	tableName: "rate_limit_windows",
	properties: {
		subject: text({ primary: true }),
		windowStart: timestamp({ primary: true }),
		requestCount: { type: "integer", default: 0 },
	},
	indexes: [{ properties: ["windowStart"] }],
});

/** Traced spend per workspace and calendar month (UTC), added to as traces are written. */
export interface WorkspaceMonthlySpend {
	workspace: string;
	month: string;
	costMicroUsd: number;
}
export const WorkspaceMonthlySpendSchema = new EntitySchema<WorkspaceMonthlySpend>({
	name: "WorkspaceMonthlySpend",
	tableName: "workspace_monthly_spend",
	properties: {
		workspace: text({ primary: true }),
		month: { type: "string", columnType: "date", primary: true },
		costMicroUsd: { type: new BigIntType("number"), default: 0 },
	},
});
