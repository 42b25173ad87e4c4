import { initContract } from "@ts-rest/core";
import { ZErrorEnvelope } from "./schemas/common";

export const c = initContract();

export const SCOPES = ["runtime:execute", "knowledge:read", "knowledge:write"] as const;
export type Scope = (typeof SCOPES)[number];

/** What each route declares beyond ts-rest's own fields; read by the server (auth) and the OpenAPI generator. */
export interface RouteMetadata {
	operationId: string;
	tags: string[];
	/** Required API-key scope; absent for public routes. */
	scope?: Scope;
	/** Accepts the Idempotency-Key header. */
	idempotent?: boolean;
}

export function metadata(value: RouteMetadata) {
	return value;
}

/** Every authenticated route can answer these, whatever it does. */
export const authenticatedErrors = {
	400: ZErrorEnvelope,
	401: ZErrorEnvelope,
	403: ZErrorEnvelope,
	413: ZErrorEnvelope,
	429: ZErrorEnvelope,
	500: ZErrorEnvelope,
} as const;
