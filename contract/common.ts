import { initContract } from "@ts-rest/core";
import type { ZodTypeAny } from "zod";
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
	/** A body limit of its own, in place of REQUEST_BODY_LIMIT_BYTES. */
	bodyLimit?: BodyLimit;
	/** Headers the route answers with beyond X-Request-Id, by name; documented in openapi.yaml. */
	responseHeaders?: Readonly<Record<string, ResponseHeader>>;
	/**
	 * The dashboard's management API: `required`, a signed-in session (cookie) and, on writes, its
	 * CSRF token (X-CSRF-Token); `sign-in`, no session yet (it makes one). Writes from another
	 * origin are refused either way.
	 */
	session?: "required" | "sign-in";
	/**
	 * `openai`: the OpenAI-compatible surface (contract/openai-compatible.ts) answers its errors in
	 * OpenAI's shape `{error: {message, type, param, code}}`, with the catalog's code in `code`,
	 * instead of the envelope.
	 */
	errorFormat?: "openai";
	/** A second form of the 200 answer, chosen by the request body (OpenAI's `stream: true`): documented beside the JSON one. */
	streamedResponse?: { contentType: "text/event-stream"; body: ZodTypeAny };
}

export interface ResponseHeader {
	/** The OpenAPI component it is documented as (components/headers). */
	component: string;
	description: string;
	type: "string" | "integer";
}

/**
 * A route whose body is mostly one large field (a base64 file): bodies up to `readBytes` are read;
 * larger ones up to `refuseAsFieldBytes` are refused unread as 400 VALIDATION_ERROR on `field`
 * (the value is too large, which is what the client needs to hear), beyond that 413.
 */
export interface BodyLimit {
	readBytes: number;
	refuseAsFieldBytes: number;
	field: string;
	/** The issue reported on `field` when a body is refused unread. */
	issue: string;
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
