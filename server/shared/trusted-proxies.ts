import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

/**
 * Who sent a request, for limits kept per client (sign-in throttling). The socket's address,
 * unless that is one of the configured proxies (TRUSTED_PROXIES): then X-Forwarded-For is read
 * from the right, each trusted hop naming the one before it, and the first address that is not a
 * trusted proxy is the client. Entries left of it were written by the client and are ignored, so
 * a forged header cannot make anyone look like someone else. With no proxy configured the header
 * is never read: behind an unconfigured proxy every client shares the proxy's address.
 */
export class TrustedProxies {
	private readonly proxies = new BlockList();
	private readonly configured: boolean;

	/** Entries are IP addresses or CIDR ranges (`10.0.0.0/8`, `::1`); throws naming the first that is neither. */
	constructor(entries: readonly string[]) {
		for (const entry of entries) {
			const [address, prefix, extra] = entry.split("/");
			const family = isIP(address);
			const bits = prefix === undefined ? undefined : Number(prefix);
			const maxBits = family === 6 ? 128 : 32;
			if (family === 0 || extra !== undefined || (bits !== undefined && !(prefix !== "" && Number.isInteger(bits) && bits >= 0 && bits <= maxBits))) {
				throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR range`);
			}
			const type = family === 6 ? "ipv6" : "ipv4";
			if (bits === undefined) this.proxies.addAddress(address, type);
			else this.proxies.addSubnet(address, bits, type);
		}
		this.configured = entries.length > 0;
	}

	clientAddress(request: IncomingMessage): string {
		let client = plainAddress(request.socket.remoteAddress ?? "");
		if (!this.configured || !this.trusts(client)) return client;
		const header = request.headers["x-forwarded-for"];
		const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",");
		for (let index = hops.length - 1; index >= 0; index--) {
			const hop = plainAddress(hops[index].trim());
			// A hop that is not an address (`unknown`, garbage): the last trusted proxy is all we know.
			if (isIP(hop) === 0) return client;
			client = hop;
			if (!this.trusts(hop)) return hop;
		}
		return client;
	}

	private trusts(address: string): boolean {
		const family = isIP(address);
		return family !== 0 && this.proxies.check(address, family === 6 ? "ipv6" : "ipv4");
	}
}

/** `1.2.3.4` from `::ffff:1.2.3.4`, `1.2.3.4:567` or `[::1]:567`; anything else as it is. */
function plainAddress(address: string): string {
	const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
	const unwrapped = bracketed ? bracketed[1] : (/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address)?.[1] ?? address);
	return /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(unwrapped)?.[1] ?? unwrapped;
}
