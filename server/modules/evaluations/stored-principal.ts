import type { StoredPrincipal } from "../../db/entities";
import type { McpScope, Principal } from "../../shared/principal";
import type { Scope } from "../../../contract/common";

/** The caller who started a run, kept with it: the run's generations are traced as theirs, whichever process runs them. */
export function storePrincipal(principal: Principal): StoredPrincipal {
	switch (principal.kind) {
		case "user":
			return { kind: "user", userId: principal.userId, clientId: principal.clientId, connectionId: principal.connectionId, organizationId: principal.organizationId, scopes: [...principal.scopes] };
		case "session":
			return { kind: "session", userId: principal.userId, sessionId: principal.sessionId };
		case "api_key":
			return { kind: "api_key", apiKeyId: principal.apiKeyId, workspaceId: principal.workspaceId, scopes: [...principal.scopes] };
		case "operator":
			return { kind: "operator" };
	}
}

export function restorePrincipal(stored: StoredPrincipal): Principal {
	switch (stored.kind) {
		case "user":
			return { ...stored, scopes: new Set(stored.scopes as McpScope[]) };
		case "session":
			return { ...stored };
		case "api_key":
			return { ...stored, scopes: new Set(stored.scopes as Scope[]) };
		case "operator":
			return { kind: "operator" };
	}
}
