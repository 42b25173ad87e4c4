import { formatIpv4, inPrefix, type IpAddress, ipv4InGroups, parseIpAddress } from "./ip-address";

/**
 * Which addresses an outbound call a tenant can aim must never reach: the IANA special-purpose
 * registries (RFC 6890 and its updates) plus the cloud metadata services, and every IPv6 form that
 * carries such an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo).
 */
export type SpecialUseCategory = "unspecified" | "loopback" | "private" | "shared" | "link-local" | "cloud-metadata" | "multicast" | "broadcast" | "reserved";

export interface SpecialUse {
	category: SpecialUseCategory;
	/** In words, for the refusal: "loopback", "private network, RFC 1918", "cloud metadata service, AWS". */
	description: string;
	/** For an IPv4-mapped IPv6 address (the socket reaches the IPv4 address itself): that address, which an allow-list entry may name. */
	ipv4Equivalent?: string;
}

type Range = readonly [network: string, prefix: number, category: SpecialUseCategory, description: string];

/** First match wins: the single metadata addresses come before the ranges holding them. */
const IPV4_RANGES: readonly Range[] = [
	["169.254.169.254", 32, "cloud-metadata", "cloud metadata service"],
	["169.254.170.2", 32, "cloud-metadata", "cloud metadata service, AWS ECS task credentials"],
	["169.254.170.23", 32, "cloud-metadata", "cloud metadata service, AWS EKS Pod Identity"],
	["168.63.129.16", 32, "cloud-metadata", "cloud metadata service, Azure WireServer"],
	["100.100.100.200", 32, "cloud-metadata", "cloud metadata service, Alibaba Cloud"],
	["192.0.0.192", 32, "cloud-metadata", "cloud metadata service, Oracle Cloud"],
	["255.255.255.255", 32, "broadcast", "broadcast"],
	["0.0.0.0", 8, "unspecified", "unspecified, this host"],
	["10.0.0.0", 8, "private", "private network, RFC 1918"],
	["100.64.0.0", 10, "shared", "shared address space, carrier-grade NAT"],
	["127.0.0.0", 8, "loopback", "loopback"],
	["169.254.0.0", 16, "link-local", "link-local"],
	["172.16.0.0", 12, "private", "private network, RFC 1918"],
	["192.0.0.0", 24, "reserved", "reserved, IETF protocol assignments"],
	["192.0.2.0", 24, "reserved", "reserved for documentation"],
	["192.31.196.0", 24, "reserved", "reserved, AS112"],
	["192.52.193.0", 24, "reserved", "reserved, AMT"],
	["192.88.99.0", 24, "reserved", "reserved, deprecated 6to4 relays"],
	["192.168.0.0", 16, "private", "private network, RFC 1918"],
	["192.175.48.0", 24, "reserved", "reserved, AS112"],
	["198.18.0.0", 15, "reserved", "reserved for benchmarking"],
	["198.51.100.0", 24, "reserved", "reserved for documentation"],
	["203.0.113.0", 24, "reserved", "reserved for documentation"],
	["224.0.0.0", 4, "multicast", "multicast"],
	["240.0.0.0", 4, "reserved", "reserved for future use"],
];

const IPV6_RANGES: readonly Range[] = [
	["fd00:ec2::254", 128, "cloud-metadata", "cloud metadata service, AWS"],
	["fd00:ec2::23", 128, "cloud-metadata", "cloud metadata service, AWS EKS Pod Identity"],
	["fd20:ce::254", 128, "cloud-metadata", "cloud metadata service, Google Cloud"],
	["::", 128, "unspecified", "unspecified, this host"],
	["::1", 128, "loopback", "loopback"],
	["64:ff9b:1::", 48, "private", "private network, local-use NAT64"],
	["100::", 64, "reserved", "reserved, discard-only"],
	["2001:db8::", 32, "reserved", "reserved for documentation"],
	["2001::", 23, "reserved", "reserved, IETF protocol assignments"],
	["2620:4f:8000::", 48, "reserved", "reserved, AS112"],
	["3fff::", 20, "reserved", "reserved for documentation"],
	["5f00::", 16, "reserved", "reserved, SRv6"],
	["fc00::", 7, "private", "private network, unique local fc00::/7"],
	["fec0::", 10, "private", "private network, site-local fec0::/10"],
	["fe80::", 10, "link-local", "link-local"],
	["ff00::", 8, "multicast", "multicast"],
];

interface ParsedRange {
	network: IpAddress;
	prefix: number;
	category: SpecialUseCategory;
	description: string;
}

const parseRanges = (ranges: readonly Range[]): readonly ParsedRange[] =>
	ranges.map(([network, prefix, category, description]) => ({ network: parseIpAddress(network) as IpAddress, prefix, category, description }));

const PARSED_IPV4_RANGES = parseRanges(IPV4_RANGES);
const PARSED_IPV6_RANGES = parseRanges(IPV6_RANGES);

const prefixOf = (text: string, prefix: number) => ({ network: parseIpAddress(text) as IpAddress, prefix });
const IPV4_MAPPED = prefixOf("::ffff:0:0", 96);
const IPV4_TRANSLATED = prefixOf("::ffff:0:0:0", 96);
const IPV4_COMPATIBLE = prefixOf("::", 96);
const NAT64 = prefixOf("64:ff9b::", 96);
const SIX_TO_FOUR = prefixOf("2002::", 16);
const TEREDO = prefixOf("2001::", 32);
const GLOBAL_UNICAST = prefixOf("2000::", 3);

const within = (address: IpAddress, range: { network: IpAddress; prefix: number }) => inPrefix(address, range.network, range.prefix);

function classifyIpv4(address: IpAddress): SpecialUse | undefined {
	const range = PARSED_IPV4_RANGES.find((candidate) => within(address, candidate));
	return range && { category: range.category, description: range.description };
}

/** An IPv6 form carrying `ipv4`: judged as that address; `alwaysRefused` forms (deprecated, or unroutable) are refused even for a public one. */
function classifyCarrier(ipv4: number, form: string, alwaysRefused: boolean): SpecialUse | undefined {
	const text = formatIpv4(ipv4);
	const carried = classifyIpv4({ family: 4, value: ipv4 });
	if (carried) return { category: carried.category, description: `${carried.description}, ${form} ${text}` };
	return alwaysRefused ? { category: "reserved", description: `reserved, ${form} ${text}` } : undefined;
}

/**
 * Why `address` (an IP address as text) must not be called, or undefined for a public address.
 * Text that is not an IP address is undefined too: names are judged by what they resolve to.
 */
export function classifyAddress(text: string): SpecialUse | undefined {
	const address = parseIpAddress(text);
	if (!address) return undefined;
	if (address.family === 4) return classifyIpv4(address);
	const { groups } = address;
	if (within(address, IPV4_MAPPED)) {
		const carried = classifyCarrier(ipv4InGroups(groups, 6), "IPv4-mapped", false);
		return carried && { ...carried, ipv4Equivalent: formatIpv4(ipv4InGroups(groups, 6)) };
	}
	// :: and ::1 lie in ::/96 too, and are themselves.
	if (within(address, IPV4_COMPATIBLE) && groups[6] === 0 && groups[7] <= 1) return classifyIpv6Range(address);
	if (within(address, IPV4_COMPATIBLE)) return classifyCarrier(ipv4InGroups(groups, 6), "IPv4-compatible", true);
	if (within(address, IPV4_TRANSLATED)) return classifyCarrier(ipv4InGroups(groups, 6), "IPv4-translated", true);
	// NAT64 is how IPv6-only networks reach public IPv4 hosts: only what it carries can refuse it.
	if (within(address, NAT64)) return classifyCarrier(ipv4InGroups(groups, 6), "NAT64 of", false);
	if (within(address, SIX_TO_FOUR)) return classifyCarrier(ipv4InGroups(groups, 1), "6to4 of", true);
	if (within(address, TEREDO)) {
		// RFC 4380 §4: the server's IPv4 address in groups 2-3, the client's inverted in groups 6-7.
		const client = (~ipv4InGroups(groups, 6) >>> 0) as number;
		return classifyCarrier(client, "Teredo client", false) ?? classifyCarrier(ipv4InGroups(groups, 2), "Teredo server", true);
	}
	return classifyIpv6Range(address);
}

function classifyIpv6Range(address: IpAddress): SpecialUse | undefined {
	const range = PARSED_IPV6_RANGES.find((candidate) => within(address, candidate));
	if (range) return { category: range.category, description: range.description };
	if (!within(address, GLOBAL_UNICAST)) return { category: "reserved", description: "reserved, outside global unicast 2000::/3" };
	return undefined;
}
