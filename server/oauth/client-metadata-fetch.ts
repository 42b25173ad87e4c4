import { rootCertificates } from "node:tls";
import { NO_EGRESS_EXCEPTIONS, parseEgressAllowList } from "../egress/allow-list";
import { createEgressAgent } from "../egress/egress-agent";
import { createEgressFetch } from "../egress/egress-fetch";
import { EgressPolicy } from "../egress/egress-policy";

/** OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK's one exception: the loopback ranges, nothing else. */
const LOOPBACK = parseEgressAllowList("127.0.0.0/8,::1");

/**
 * The `fetch` oidc-provider uses for Client ID Metadata Documents, on the egress policy
 * (server/egress): the address is checked after DNS resolution, at connect time (so a name
 * resolving to 10.0.0.1, or rebinding between two lookups, is refused), against every special-use
 * range. Its only exception is loopback, with `allowLoopback` (tests, local development):
 * EGRESS_ALLOW_HOSTS does not apply here, because anyone can name a document URL by starting a
 * sign-in, and a document meant for any authorization server is public by nature. oidc-provider
 * itself insists on https, no redirects, a 5 KiB body and a 2.5 s budget, and caches documents for
 * their max-age (`withCacheLifetime` states it for the documents that say no-store or nothing at all).
 */
export function createClientMetadataFetch(options: { allowLoopback: boolean; certificateAuthorities?: string }): {
	fetch: (url: URL | string, init: RequestInit) => Promise<Response>;
	close(): Promise<void>;
} {
	const policy = new EgressPolicy({
		allowList: options.allowLoopback ? LOOPBACK : NO_EGRESS_EXCEPTIONS,
		allowance: (category) => (category === "loopback" ? "OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK allows loopback (tests and local development only)" : undefined),
	});
	const agent = createEgressAgent(policy, {
		// Added to the public roots, not instead of them: documents on public hosts stay reachable.
		connect: options.certificateAuthorities ? { ca: [...rootCertificates, options.certificateAuthorities] } : {},
	});
	const egressFetch = createEgressFetch(agent);
	return {
		fetch: async (url, init) => {
			// oidc-provider passes its own dispatcher: ours does the same checks, through the egress policy.
			const { dispatcher: _theirs, ...rest } = init as RequestInit & { dispatcher?: unknown };
			void _theirs;
			return withCacheLifetime(await egressFetch(url, rest));
		},
		close: () => agent.close(),
	};
}

/** How long a document that names no lifetime (no max-age, no Expires) is reused. */
export const CLIENT_METADATA_DEFAULT_MAX_AGE_SECONDS = 30;

/**
 * oidc-provider reads only max-age (or Expires) and gives anything else its minimum lifetime,
 * which is set to 0 so that documents are cached exactly as long as they say: here no-store and
 * no-cache become max-age=0 (fetched again on every use, RFC 9111 §5.2.2.3-5), and a document
 * that says nothing gets a short default instead of being fetched at every step of a sign-in.
 */
function withCacheLifetime(response: Response): Response {
	if (response.status !== 200) return response;
	const cacheControl = response.headers.get("cache-control") ?? "";
	let lifetime: string | undefined;
	if (/(?:^|,)\s*no-(?:store|cache)\b/i.test(cacheControl)) lifetime = "max-age=0";
	else if (!/(?:^|,)\s*max-age\s*=/i.test(cacheControl) && !response.headers.has("expires")) lifetime = `max-age=${CLIENT_METADATA_DEFAULT_MAX_AGE_SECONDS}`;
	if (!lifetime) return response;
	const headers = new Headers(response.headers);
	headers.set("cache-control", lifetime);
	return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
