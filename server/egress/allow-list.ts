import { inPrefix, type IpAddress, parseIpAddress } from "./ip-address";

/**
 * EGRESS_ALLOW_HOSTS: the operator's exceptions to the egress policy, comma-separated. Each entry
 * is a host name (`ollama.internal`, or `*.svc.cluster.local` for the names under it), an address
 * (`127.0.0.1`, `[::1]`) or a CIDR range (`10.20.0.0/16`, `fd00:1234::/32`); names and addresses
 * may end in `:port` to allow that port only (`127.0.0.1:11434` is Ollama, not everything on the
 * machine). A name is trusted whatever it resolves to; an address or range allows the special-use
 * addresses it covers. A cloud metadata address is only ever allowed by naming it exactly, never by
 * a range around it.
 */
export type EgressAllowEntry =
	| { kind: "name"; name: string; subdomains: boolean; port?: number; text: string }
	| { kind: "address"; network: IpAddress; prefix: number; port?: number; text: string };

export type EgressAllowList = readonly EgressAllowEntry[];

export const NO_EGRESS_EXCEPTIONS: EgressAllowList = [];

export class EgressAllowListError extends Error {
	override readonly name = "EgressAllowListError";
}

const HOST_NAME = /^(?:\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Parses the setting; an entry it cannot read throws, naming it (a typo must not silently allow nothing, or everything). */
export function parseEgressAllowList(text: string): EgressAllowList {
	return text
		.split(",")
		.map((entry) => entry.trim())
		.filter((entry) => entry !== "")
		.map(parseEntry);
}

function parseEntry(text: string): EgressAllowEntry {
	const refusal = (why: string) =>
		new EgressAllowListError(`"${text}" ${why}; expected a host name, an address or a CIDR range, optionally with :port (e.g. 127.0.0.1:11434, ollama.internal, 10.0.0.0/8)`);
	if (text.includes("://")) throw refusal("is a URL; list its host, with :port to allow that port only");
	const slash = text.indexOf("/");
	if (slash !== -1) {
		const network = parseIpAddress(text.slice(0, slash));
		const prefixText = text.slice(slash + 1);
		const prefix = Number(prefixText);
		if (!network) throw refusal("is not a CIDR range");
		const bits = network.family === 4 ? 32 : 128;
		if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) throw refusal(`has a prefix length outside 0-${bits}`);
		if (prefix === 0) throw refusal("would allow every address");
		return { kind: "address", network, prefix, text };
	}
	let host = text;
	let port: number | undefined;
	const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(text);
	const withPort = /^([^:]+):(\d+)$/.exec(text);
	if (bracketed) [, host] = bracketed;
	if (bracketed?.[2] !== undefined) port = Number(bracketed[2]);
	if (!bracketed && withPort) {
		host = withPort[1];
		port = Number(withPort[2]);
	}
	if (port !== undefined && (port < 1 || port > 65535)) throw refusal("has a port outside 1-65535");
	const address = parseIpAddress(host);
	if (address) return { kind: "address", network: address, prefix: address.family === 4 ? 32 : 128, port, text };
	const name = host.toLowerCase().replace(/\.$/, "");
	if (!HOST_NAME.test(name)) throw refusal("is not a host name");
	const subdomains = name.startsWith("*.");
	return { kind: "name", name: subdomains ? name.slice(2) : name, subdomains, port, text };
}

/** The entry allowing connections to host name `hostname` at `port`, whatever it resolves to. */
export function findAllowedName(list: EgressAllowList, hostname: string, port: number): EgressAllowEntry | undefined {
	const name = hostname.toLowerCase().replace(/\.$/, "");
	return list.find(
		(entry) => entry.kind === "name" && (entry.port === undefined || entry.port === port) && (entry.subdomains ? name.endsWith(`.${entry.name}`) : name === entry.name),
	);
}

/**
 * The entry allowing a connection to special-use `address` at `port`. `exactOnly`: only an entry
 * naming this very address counts (cloud metadata services).
 */
export function findAllowedAddress(list: EgressAllowList, address: string, port: number, exactOnly: boolean): EgressAllowEntry | undefined {
	const parsed = parseIpAddress(address);
	if (!parsed) return undefined;
	const fullLength = parsed.family === 4 ? 32 : 128;
	return list.find(
		(entry) =>
			entry.kind === "address" &&
			(entry.port === undefined || entry.port === port) &&
			(!exactOnly || entry.prefix === fullLength) &&
			inPrefix(parsed, entry.network, entry.prefix),
	);
}
