import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, fetch as undiciFetch } from "undici";

/**
 * Addresses a Client ID Metadata Document may never be fetched from (SSRF): the IANA special-purpose
 * registries (RFC 6890): private, shared, link-local, multicast, reserved, and the IPv6 prefixes that
 * carry an IPv4 address (NAT64, 6to4, Teredo), which could reach a private one.
 */
function specialUseAddresses(): BlockList {
	const list = new BlockList();
	for (const [network, prefix] of [
		["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24],
		["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["192.175.48.0", 24],
		["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
	] as const) list.addSubnet(network, prefix, "ipv4");
	for (const [network, prefix] of [
		["::", 128], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["2001::", 23], ["2001:db8::", 32], ["2002::", 16],
		["2620:4f:8000::", 48], ["3fff::", 20], ["5f00::", 16], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8],
	] as const) {
		list.addSubnet(network, prefix, "ipv6");
	}
	return list;
}

function loopbackAddresses(): BlockList {
	const list = new BlockList();
	list.addSubnet("127.0.0.0", 8, "ipv4");
	list.addAddress("::1", "ipv6");
	return list;
}

/**
 * The `fetch` oidc-provider uses for Client ID Metadata Documents: the address is checked after
 * DNS resolution, at connect time (so a name resolving to 10.0.0.1, or rebinding between two
 * lookups, is refused), against private, loopback, link-local and reserved ranges; loopback only
 * when `allowLoopback` (tests, local development). oidc-provider itself insists on https, no
 * redirects, a 5 KiB body and a 2.5 s budget, and caches documents for their max-age
 * (`withCacheLifetime` states it for the documents that say no-store or nothing at all).
 */
export function createClientMetadataFetch(options: { allowLoopback: boolean; certificateAuthorities?: string }): {
	fetch: (url: URL | string, init: RequestInit) => Promise<Response>;
	close(): Promise<void>;
} {
	const refused = specialUseAddresses();
	const loopback = loopbackAddresses();
	const allowed = (address: string) => {
		const family = isIP(address) === 6 ? "ipv6" : "ipv4";
		// IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is.
		const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
		if (mapped) return allowed(mapped[1]);
		if (loopback.check(address, family)) return options.allowLoopback;
		return !refused.check(address, family);
	};
	const agent = new Agent({
		connect: {
			// Added to the public roots, not instead of them: documents on public hosts stay reachable.
			...(options.certificateAuthorities ? { ca: [...rootCertificates, options.certificateAuthorities] } : {}),
			lookup: (hostname: string, lookupOptions: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
				dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
					if (error) return callback(error, []);
					const refusedAddress = addresses.find((entry) => !allowed(entry.address));
					if (refusedAddress) return callback(new Error(`${hostname} resolves to a special-use address (${refusedAddress.address})`), []);
					callback(null, addresses);
				});
			},
		},
	});
	return {
		fetch: async (url, init) => {
			// Node skips the lookup for an IP literal: check it here.
			const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
			if (isIP(host) !== 0 && !allowed(host)) throw new Error(`${host} is a special-use address`);
			// oidc-provider passes its own dispatcher: ours does the same checks at the lookup, with the loopback option.
			const { dispatcher: _theirs, ...rest } = init as RequestInit & { dispatcher?: unknown };
			void _theirs;
			const response = (await undiciFetch(url, { ...(rest as object), dispatcher: agent })) as unknown as Response;
			return withCacheLifetime(response);
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
