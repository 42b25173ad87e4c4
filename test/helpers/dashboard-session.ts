/**
 * The dashboard's session as a browser holds it (the cookie and the CSRF token), for tests that
 * call the management API directly. The cookie works on every instance of one installation.
 */
export interface DashboardSession {
	cookie: string;
	csrf: string;
	/** A management API call with this session (and its CSRF token on writes) against `baseUrl`. */
	call(baseUrl: string, method: string, path: string, body?: unknown): Promise<Response>;
}

export async function signInToDashboard(baseUrl: string, email: string, password: string): Promise<DashboardSession> {
	const response = await fetch(`${baseUrl}/management/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
	if (response.status !== 200) throw new Error(`sign-in refused: ${response.status} ${await response.text()}`);
	const cookie = (response.headers.getSetCookie().find((value) => value.startsWith("session=") || value.startsWith("__Host-session=")) ?? "").split(";")[0];
	const { csrfToken } = (await response.json()) as { csrfToken: string };
	return {
		cookie,
		csrf: csrfToken,
		call: (url, method, path, body) =>
			fetch(`${url}${path}`, {
				method,
				headers: { cookie, ...(method === "GET" ? {} : { "x-csrf-token": csrfToken }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
				body: body === undefined ? undefined : JSON.stringify(body),
			}),
	};
}
