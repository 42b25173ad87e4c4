import { c } from "../common";
import { accountContract } from "./account";
import { credentialsContract } from "./credentials";
import { invitationsContract } from "./invitations";
import { keysContract } from "./keys";
import { membersContract } from "./members";
import { organizationsContract } from "./organizations";
import { assistantsContract } from "./assistants";
import { environmentsContract } from "./environments";
import { evaluationsContract } from "./evaluations";
import { knowledgeSourcesContract } from "./knowledge-sources";
import { sessionContract } from "./session";
import { tracesContract } from "./traces";

/**
 * The dashboard's management API: session-authenticated (cookie plus X-CSRF-Token on writes), its
 * own OpenAPI document, apart from the spec's runtime and knowledge API. Every route calls the same
 * use case as the MCP tool and the operator CLI command that do the same thing.
 */
export const managementContract = c.router({
	session: sessionContract,
	account: accountContract,
	keys: keysContract,
	credentials: credentialsContract,
	members: membersContract,
	invitations: invitationsContract,
	organizations: organizationsContract,
	assistants: assistantsContract,
	environments: environmentsContract,
	traces: tracesContract,
	knowledgeSources: knowledgeSourcesContract,
	evaluations: evaluationsContract,
});
export type ManagementContract = typeof managementContract;

export * from "./account";
export * from "./credentials";
export * from "./invitations";
export * from "./keys";
export * from "./members";
export * from "./organizations";
export * from "./assistants";
export * from "./environments";
export * from "./evaluations";
export * from "./knowledge-sources";
export * from "./session";
export * from "./traces";
