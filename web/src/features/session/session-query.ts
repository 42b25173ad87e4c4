import type { z } from "zod";
import type { ZSession } from "../../../../contract/management";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { managementApi, rememberCsrfToken, unwrap } from "../../api/management-client";

/** The signed-in user, their organizations (with role) and workspaces, and the CSRF token. */
export const sessionQuery = queryOptions({
	queryKey: ["session"],
	queryFn: async () => {
		const session = unwrap(await managementApi.session.getSession());
		rememberCsrfToken(session.csrfToken);
		return session;
	},
	staleTime: 60_000,
});

export function useSession() {
	return useQuery(sessionQuery).data;
}

export type Session = z.infer<typeof ZSession>;
