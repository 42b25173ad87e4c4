import { isIP } from "node:net";

/**
 * IP addresses as numbers, for prefix matching: IPv4 as one unsigned 32-bit number, IPv6 as eight
 * 16-bit groups. Only what the egress policy needs; node:net validates the text first.
 */
export type IpAddress = { family: 4; value: number } | { family: 6; groups: readonly number[] };

/** `text` as an address, or undefined when it is not one. Brackets (URL form) and an IPv6 zone (`%eth0`) are accepted. */
export function parseIpAddress(text: string): IpAddress | undefined {
	const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
	const withoutZone = bare.includes("%") ? bare.slice(0, bare.indexOf("%")) : bare;
	const family = isIP(withoutZone);
	if (family === 4) return { family: 4, value: parseIpv4(withoutZone) };
	if (family === 6) return { family: 6, groups: parseIpv6(withoutZone) };
	return undefined;
}

function parseIpv4(text: string): number {
	return text.split(".").reduce((value, octet) => value * 256 + Number(octet), 0);
}

function parseIpv6(text: string): number[] {
	let head = text;
	const tail: number[] = [];
	// A trailing dotted quad (::ffff:1.2.3.4) is the last two groups.
	const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(head);
	if (dotted) {
		const value = parseIpv4(dotted[1]);
		tail.push(Math.floor(value / 65536), value % 65536);
		head = head.slice(0, dotted.index + 1);
		if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
	}
	const groupsOf = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
	const gap = head.indexOf("::");
	let groups: number[];
	if (gap === -1) {
		groups = [...groupsOf(head), ...tail];
	} else {
		const before = groupsOf(head.slice(0, gap));
		const after = [...groupsOf(head.slice(gap + 2)), ...tail];
		groups = [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
	}
	return groups;
}

export function formatIpv4(value: number): string {
	return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/** Whether `address` lies in `network`/`prefix` (same family). */
export function inPrefix(address: IpAddress, network: IpAddress, prefix: number): boolean {
	if (address.family === 4 && network.family === 4) {
		if (prefix === 0) return true;
		const shift = 32 - prefix;
		return Math.floor(address.value / 2 ** shift) === Math.floor(network.value / 2 ** shift);
	}
	if (address.family === 6 && network.family === 6) {
		for (let group = 0, remaining = prefix; remaining > 0; group++, remaining -= 16) {
			const bits = Math.min(16, remaining);
			const shift = 16 - bits;
			if (address.groups[group] >> shift !== network.groups[group] >> shift) return false;
		}
		return true;
	}
	return false;
}

/** The IPv4 address held in groups `high` and `high + 1` of an IPv6 address. */
export function ipv4InGroups(groups: readonly number[], high: number): number {
	return groups[high] * 65536 + groups[high + 1];
}
