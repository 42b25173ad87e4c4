import type { Scope } from "../../contract/common";

/** OAuth scopes of the MCP control plane (spec, MCP: a new connection is read-only by default). */
export const MCP_SCOPES = ["mcp:read", "mcp:write", "mcp:admin"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/** A workspace API key (runtime and knowledge API). */
export interface ApiKeyPrincipal {
	kind: "api_key";
	apiKeyId: string;
	workspaceId: string;
	scopes: ReadonlySet<Scope>;
}

/** A user acting through an approved OAuth connection (the MCP control plane). */
export interface UserPrincipal {
	kind: "user";
	userId: string;
	clientId: string;
	connectionId: string;
	/** The one organization the connection is bound to; null when the user opted in to all of theirs. */
	organizationId: string | null;
	scopes: ReadonlySet<McpScope>;
}

/**
 * A person signed in to the dashboard (a browser session): acts in every organization they belong
 * to with their role there. No token scopes and no MCP administration switch apply: those limit
 * what an application connected over MCP may do on the person's behalf, not the person.
 */
export interface SessionPrincipal {
	kind: "session";
	userId: string;
	sessionId: string;
}

/** The operator CLI: trusted, acts on any organization, answers to nobody but the shell. */
export interface OperatorPrincipal {
	kind: "operator";
}

/** Who is calling a use case. Every transport (HTTP, MCP, CLI) builds one; the domain branches on `kind`. */
export type Principal = ApiKeyPrincipal | UserPrincipal | SessionPrincipal | OperatorPrincipal;

export const OPERATOR: OperatorPrincipal = Object.freeze({ kind: "operator" });

/** How traces, quotas and the audit log name a principal: `{type, id}` (id null for the operator). */
export function describePrincipal(principal: Principal): { type: Principal["kind"]; id: string | null } {
	switch (principal.kind) {
		case "api_key":
			return { type: "api_key", id: principal.apiKeyId };
		case "user":
			return { type: "user", id: principal.userId };
		case "session":
			return { type: "session", id: principal.userId };
		case "operator":
			return { type: "operator", id: null };
	}
}
