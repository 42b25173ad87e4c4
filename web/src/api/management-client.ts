import { type ApiFetcherArgs, initClient, tsRestFetchApi } from "@ts-rest/core";
import { managementContract } from "../../../contract/management";

/** The envelope every non-2xx answer carries (spec, Errors), as the dashboard shows it. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly fields: { field: string; issue: string }[] = [],
	) {
		super(message);
		this.name = "ApiError";
	}

	/** The issue reported on one field (`body.name`, or just `name`), to show next to its input. */
	issueFor(field: string): string | undefined {
		return this.fields.find((entry) => entry.field === field || entry.field === `body.${field}`)?.issue;
	}
}

/** The CSRF token of the current session, sent on every state-changing request. */
const csrf = { token: undefined as string | undefined };

export function rememberCsrfToken(token: string | undefined): void {
	csrf.token = token;
}

/** For requests made without the typed client (the playground's stream). */
export function currentCsrfToken(): string | undefined {
	return csrf.token;
}

/** Every management call: same-origin cookies, the CSRF header on writes, JSON. */
export const managementApi = initClient(managementContract, {
	baseUrl: "",
	baseHeaders: {},
	credentials: "same-origin",
	throwOnUnknownStatus: false,
	api: (args: ApiFetcherArgs) => {
		if (args.method !== "GET" && csrf.token) args.headers["x-csrf-token"] = csrf.token;
		return tsRestFetchApi(args);
	},
});

type AnyResult = { status: number; body: unknown };

/** The body of a 2xx answer; an ApiError carrying the envelope otherwise. */
export function unwrap<Result extends AnyResult>(result: Result): Extract<Result, { status: 200 | 201 }>["body"] {
	if (result.status >= 200 && result.status < 300) return result.body as Extract<Result, { status: 200 | 201 }>["body"];
	const body = (result.body ?? {}) as { code?: string; message?: string; fields?: { field: string; issue: string }[] };
	throw new ApiError(result.status, body.code ?? "INTERNAL_ERROR", body.message ?? `The server answered ${result.status}`, body.fields);
}

/** The session is missing or over (401 UNAUTHENTICATED); a wrong password is INVALID_CREDENTIALS, not this. */
export function isUnauthenticated(error: unknown): boolean {
	return error instanceof ApiError && error.status === 401 && error.code === "UNAUTHENTICATED";
}
