import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { type EgressAllowList, findAllowedAddress, findAllowedName } from "./allow-list";
import { EgressRefusedError } from "./egress-refused-error";
import { classifyAddress, type SpecialUseCategory } from "./special-use-addresses";

/** Every address a name resolves to, as dns.lookup with `all: true` returns them. */
export type EgressLookup = (hostname: string) => Promise<LookupAddress[]>;

export interface EgressPolicyOptions {
	/** The operator's exceptions (EGRESS_ALLOW_HOSTS, server/config.ts). */
	allowList: EgressAllowList;
	/** What a refusal of this category tells the reader to do (the setting that would allow it), or undefined when nothing can. */
	allowance: (category: SpecialUseCategory) => string | undefined;
	/** Resolution; dns.lookup (the system resolver, /etc/hosts included, as undici would use) unless a test injects its own. */
	lookup?: EgressLookup;
}

const systemLookup: EgressLookup = (hostname) => dnsLookup(hostname, { all: true });

/**
 * The decision for one outbound connection: the host name is resolved once and every address it
 * resolves to is checked, so a name with one private address among public ones is refused, and
 * the connection is then made to the checked addresses only (egress-agent.ts), leaving no window for
 * a second, different answer (DNS rebinding). An IP literal is checked as it is, without resolution.
 */
export class EgressPolicy {
	private readonly lookup: EgressLookup;

	constructor(private readonly options: EgressPolicyOptions) {
		this.lookup = options.lookup ?? systemLookup;
	}

	/** The addresses `host` may be connected to at `port`; throws EgressRefusedError (or the resolver's error). */
	async resolve(host: string, port: number): Promise<LookupAddress[]> {
		const hostname = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
		const family = isIP(hostname);
		if (family !== 0) {
			this.check(hostname, hostname, port);
			return [{ address: hostname, family }];
		}
		const addresses = await this.lookup(hostname);
		if (addresses.length === 0) throw Object.assign(new Error(`${hostname} does not resolve to any address`), { code: "ENOTFOUND" });
		// The operator trusts a name it listed, whatever it resolves to (a service name inside a cluster).
		if (findAllowedName(this.options.allowList, hostname, port)) return addresses;
		for (const { address } of addresses) this.check(hostname, address, port);
		return addresses;
	}

	/**
	 * The refusal a URL's host already earns without any resolution (an IP literal no entry allows), to
	 * refuse a setting when it is made; names are only judged when called, by what they resolve to then.
	 */
	refusalOfLiteral(url: URL): EgressRefusedError | undefined {
		const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
		if (isIP(hostname) === 0) return undefined;
		try {
			this.check(hostname, hostname, Number(url.port) || (url.protocol === "https:" ? 443 : 80));
			return undefined;
		} catch (error) {
			if (error instanceof EgressRefusedError) return error;
			throw error;
		}
	}

	private check(hostname: string, address: string, port: number): void {
		const specialUse = classifyAddress(address);
		if (!specialUse) return;
		// A range an operator allowed (a private subnet) must not open the metadata service inside it.
		const exactOnly = specialUse.category === "cloud-metadata";
		const { allowList } = this.options;
		if (findAllowedAddress(allowList, address, port, exactOnly)) return;
		if (specialUse.ipv4Equivalent && findAllowedAddress(allowList, specialUse.ipv4Equivalent, port, exactOnly)) return;
		throw new EgressRefusedError(hostname, address, specialUse, this.options.allowance(specialUse.category));
	}
}
