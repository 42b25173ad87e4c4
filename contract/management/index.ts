import { c } from "../common";
import { accountContract } from "./account";
import { sessionContract } from "./session";

/**
 * The dashboard's management API: session-authenticated (cookie plus X-CSRF-Token on writes), its
 * own OpenAPI document, apart from the spec's runtime and knowledge API. Every route calls the same
 * use case as the MCP tool and the operator CLI command that do the same thing.
 */
export const managementContract = c.router({
	session: sessionContract,
	account: accountContract,
});
export type ManagementContract = typeof managementContract;

export * from "./account";
export * from "./session";
