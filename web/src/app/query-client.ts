import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError, isUnauthenticated } from "../api/management-client";

/**
 * One query client for the application. An expired session (401 on any call) sends the person to
 * sign in and, once signed in, back to the page they were on.
 */
export function createQueryClient(onSessionExpired: () => void): QueryClient {
	const handle = (error: unknown) => {
		if (isUnauthenticated(error)) onSessionExpired();
	};
	return new QueryClient({
		queryCache: new QueryCache({ onError: handle }),
		mutationCache: new MutationCache({ onError: handle }),
		defaultOptions: {
			queries: {
				staleTime: 10_000,
				// Refusals are answers, not network trouble: retrying a 403 or a 404 only delays the message.
				retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
			},
		},
	});
}
