import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { buildConnector } from "undici";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import { createEgressConnector } from "../../server/egress/egress-agent";
import { type EgressLookup, EgressPolicy } from "../../server/egress/egress-policy";
import { EgressRefusedError } from "../../server/egress/egress-refused-error";

/**
 * The policy's decision, before any connection: a resolver this test controls answers every name,
 * and the connector's next stage (what would open a socket) only records that it was asked. Nothing
 * here opens a socket, so no address in these tables is ever contacted, refused or not.
 */
const ALLOWANCE = "the operator can allow it with EGRESS_ALLOW_HOSTS";

function lookupFrom(table: Record<string, string[]>): EgressLookup & { asked: string[] } {
	const asked: string[] = [];
	const lookup = async (hostname: string): Promise<LookupAddress[]> => {
		asked.push(hostname);
		const addresses = table[hostname];
		if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
		return addresses.map((address) => ({ address, family: isIP(address) }));
	};
	return Object.assign(lookup, { asked });
}

function connectorFor(options: { allow?: string; table?: Record<string, string[]>; timeoutMs?: number }) {
	const lookup = lookupFrom(options.table ?? {});
	const policy = new EgressPolicy({ allowList: parseEgressAllowList(options.allow ?? ""), allowance: () => ALLOWANCE, lookup });
	const socketsOpened: buildConnector.Options[] = [];
	// Stands for undici's socket connector: records the attempt and fails it, without any network.
	const base: buildConnector.connector = (connectOptions, callback) => {
		socketsOpened.push(connectOptions);
		callback(new Error("recorded, not connected"), null);
	};
	const connector = createEgressConnector(policy, base, { timeoutMs: options.timeoutMs });
	const connect = (url: string) =>
		new Promise<Error>((resolve) => {
			const { hostname, host, protocol, port } = new URL(url);
			connector({ hostname: hostname.replace(/^\[|\]$/g, ""), host, protocol, port }, (...[error]) => resolve(error as Error));
		});
	return { connect, socketsOpened, lookup, policy };
}

/** Every address the policy must refuse by default, with the words the refusal uses for it. */
const REFUSED: [address: string, description: RegExp][] = [
	["169.254.169.254", /cloud metadata service/],
	["10.0.0.1", /private network/],
	["10.255.3.4", /private network/],
	["172.16.5.4", /private network/],
	["192.168.1.1", /private network/],
	["100.64.0.1", /carrier-grade NAT/],
	["127.0.0.1", /loopback/],
	["127.0.0.2", /loopback/],
	["169.254.1.1", /link-local/],
	["0.0.0.0", /unspecified/],
	["255.255.255.255", /broadcast/],
	["224.0.0.1", /multicast/],
	["240.0.0.1", /reserved/],
	["192.0.2.10", /reserved for documentation/],
	["100.100.100.200", /cloud metadata service, Alibaba/],
	["168.63.129.16", /cloud metadata service, Azure/],
	["::1", /loopback/],
	["::", /unspecified/],
	["fd00::1", /private network, unique local/],
	["fc12:3456::1", /private network, unique local/],
	["fec0::1", /private network, site-local/],
	["fe80::1", /link-local/],
	["fd00:ec2::254", /cloud metadata service, AWS/],
	["ff02::1", /multicast/],
	["::ffff:127.0.0.1", /loopback, IPv4-mapped 127.0.0.1/],
	["::ffff:7f00:1", /loopback, IPv4-mapped 127.0.0.1/],
	["::ffff:a9fe:a9fe", /cloud metadata service, IPv4-mapped 169.254.169.254/],
	["::ffff:10.0.0.1", /private network, RFC 1918, IPv4-mapped 10.0.0.1/],
	["::ffff:0:7f00:1", /loopback, IPv4-translated 127.0.0.1/],
	["::127.0.0.1", /loopback, IPv4-compatible 127.0.0.1/],
	["::a9fe:a9fe", /cloud metadata service, IPv4-compatible 169.254.169.254/],
	["::808:808", /reserved, IPv4-compatible 8.8.8.8/],
	["64:ff9b::a9fe:a9fe", /cloud metadata service, NAT64 of 169.254.169.254/],
	["64:ff9b::10.0.0.1", /private network, RFC 1918, NAT64 of 10.0.0.1/],
	["64:ff9b:1::1", /local-use NAT64/],
	["2002:a9fe:a9fe::", /cloud metadata service, 6to4 of 169.254.169.254/],
	["2002:a00:1::1", /private network, RFC 1918, 6to4 of 10.0.0.1/],
	// Teredo (RFC 4380): the client's address is stored inverted; 5601:5601 is 169.254.169.254 (a9fe:a9fe).
	["2001:0:4136:e378:8000:63bf:5601:5601", /cloud metadata service, Teredo client 169.254.169.254/],
	["2001:0:4136:e378:8000:63bf:f7f7:f7f7", /reserved, Teredo server 65.54.227.120/],
	["2001:db8::1", /reserved for documentation/],
	["100::1", /reserved/],
	["4000::1", /outside global unicast/],
];

describe("the egress policy's decision, before any connection", () => {
	it("refuses every special-use address given as the URL's host, naming the address, what it is and the setting; no socket is opened", async () => {
		const { connect, socketsOpened, lookup } = connectorFor({});
		for (const [address, description] of REFUSED) {
			const host = isIP(address) === 6 ? `[${address}]` : address;
			const error = await connect(`http://${host}:8080/v1`);
			expect(error, address).toBeInstanceOf(EgressRefusedError);
			expect(error.message, address).toMatch(description);
			expect(error.message).toMatch(/ is a special-use address \(.+\); the operator can allow it with EGRESS_ALLOW_HOSTS$/);
		}
		expect(socketsOpened).toEqual([]);
		// An IP literal is judged as it is: no resolution.
		expect(lookup.asked).toEqual([]);
	});

	it("refuses a name that resolves to a special-use address, after resolving it once; no socket is opened", async () => {
		const table = Object.fromEntries(REFUSED.map(([address], index) => [`internal-${index}.example`, [address]]));
		const { connect, socketsOpened, lookup } = connectorFor({ table });
		for (const [index, [address, description]] of REFUSED.entries()) {
			const error = await connect(`https://internal-${index}.example/v1`);
			expect(error, address).toBeInstanceOf(EgressRefusedError);
			expect(error.message).toMatch(new RegExp(`^internal-${index}\\.example resolves to ${address.replace(/\./g, "\\.")}, which is a special-use address`));
			expect(error.message, address).toMatch(description);
		}
		expect(socketsOpened).toEqual([]);
		expect(lookup.asked).toEqual(REFUSED.map((_, index) => `internal-${index}.example`));
	});

	it("checks every address a name resolves to: one private address among public ones refuses the name", async () => {
		const { connect, socketsOpened } = connectorFor({ table: { "rebinding.example": ["93.184.216.34", "2606:2800:220:1::1", "10.0.0.7"] } });
		const error = await connect("https://rebinding.example/v1");
		expect(error.message).toBe(`rebinding.example resolves to 10.0.0.7, which is a special-use address (private network, RFC 1918); ${ALLOWANCE}`);
		expect(socketsOpened).toEqual([]);
	});

	it("passes public addresses and names on to the socket, unchanged (the name stays the TLS server name)", async () => {
		const { connect, socketsOpened } = connectorFor({ table: { "api.example": ["93.184.216.34", "2606:2800:220:1::1"] } });
		for (const url of ["https://api.example/v1", "http://93.184.216.34:8080/", "https://[2606:2800:220:1::1]/", "http://[::ffff:8.8.8.8]/", "http://[64:ff9b::808:808]/"]) {
			expect((await connect(url)).message).toBe("recorded, not connected");
		}
		expect(socketsOpened.map((options) => options.hostname)).toEqual(["api.example", "93.184.216.34", "2606:2800:220:1::1", "::ffff:808:808", "64:ff9b::808:808"]);
	});

	it("allows what EGRESS_ALLOW_HOSTS lists: an address (and its IPv4-mapped form), an address and port, a range, a name", async () => {
		const { connect, socketsOpened } = connectorFor({
			allow: "127.0.0.1, 127.0.0.2:11434, 10.20.0.0/16, fd12::/16, ollama.internal, *.svc.cluster.local",
			table: { "ollama.internal": ["127.0.0.9"], "models.ai.svc.cluster.local": ["10.99.0.1"], "svc.cluster.local": ["10.99.0.1"] },
		});
		const allowed = [
			"http://127.0.0.1:9/",
			"http://[::ffff:127.0.0.1]:9/",
			"http://127.0.0.2:11434/v1",
			"http://10.20.30.40/",
			"http://[fd12::5]/",
			"http://ollama.internal:11434/v1",
			"http://models.ai.svc.cluster.local/",
		];
		for (const url of allowed) expect((await connect(url)).message, url).toBe("recorded, not connected");
		expect(socketsOpened).toHaveLength(allowed.length);
		const refused = ["http://127.0.0.3/", "http://127.0.0.2:8080/", "http://10.21.0.1/", "http://[fd13::1]/", "http://svc.cluster.local/"];
		for (const url of refused) expect(await connect(url), url).toBeInstanceOf(EgressRefusedError);
		expect(socketsOpened).toHaveLength(allowed.length);
	});

	it("opens a cloud metadata address only to an entry naming it exactly, never to a range around it", async () => {
		const around = connectorFor({ allow: "169.254.0.0/16, 100.64.0.0/10, fd00::/8" });
		expect((await around.connect("http://169.254.1.1/")).message).toBe("recorded, not connected");
		for (const url of ["http://169.254.169.254/latest/meta-data/", "http://100.100.100.200/", "http://[fd00:ec2::254]/"]) {
			const error = await around.connect(url);
			expect(error.message, url).toMatch(/cloud metadata service.*EGRESS_ALLOW_HOSTS/);
		}
		expect(around.socketsOpened).toHaveLength(1);
		const exact = connectorFor({ allow: "169.254.169.254" });
		expect((await exact.connect("http://169.254.169.254/")).message).toBe("recorded, not connected");
	});

	it("bounds resolution by the connect timeout", async () => {
		const policy = new EgressPolicy({ allowList: [], allowance: () => ALLOWANCE, lookup: () => new Promise(() => {}) });
		const connector = createEgressConnector(policy, () => expect.unreachable("no socket"), { timeoutMs: 50 });
		const error = await new Promise<Error>((resolve) => connector({ hostname: "slow.example", protocol: "https:", port: "" }, (...[failure]) => resolve(failure as Error)));
		expect(error).toMatchObject({ code: "UND_ERR_CONNECT_TIMEOUT" });
	});

	it("judges a base URL with a literal address when it is set, without resolving anything", () => {
		const { policy, lookup } = connectorFor({ allow: "127.0.0.1:11434" });
		expect(policy.refusalOfLiteral(new URL("http://127.0.0.1:11434/v1"))).toBeUndefined();
		expect(policy.refusalOfLiteral(new URL("http://127.0.0.1:5432/v1"))?.message).toBe(`127.0.0.1 is a special-use address (loopback); ${ALLOWANCE}`);
		expect(policy.refusalOfLiteral(new URL("http://[::ffff:a9fe:a9fe]/"))?.message).toMatch(/cloud metadata service/);
		// Names are judged at each call, by what they resolve to then.
		expect(policy.refusalOfLiteral(new URL("http://metadata.google.internal/"))).toBeUndefined();
		expect(lookup.asked).toEqual([]);
	});
});

describe("EGRESS_ALLOW_HOSTS", () => {
	const environment = { SECRET_KEY: "x".repeat(32) };

	it("is parsed once at start: names, addresses, ranges, ports", () => {
		expect(loadConfig(environment).egress.allowList).toEqual([]);
		const { allowList } = loadConfig({ ...environment, EGRESS_ALLOW_HOSTS: " 127.0.0.1:11434 ,[::1], 10.0.0.0/8,Ollama.Internal., *.svc.cluster.local" }).egress;
		expect(allowList.map((entry) => entry.text)).toEqual(["127.0.0.1:11434", "[::1]", "10.0.0.0/8", "Ollama.Internal.", "*.svc.cluster.local"]);
		expect(allowList[3]).toMatchObject({ kind: "name", name: "ollama.internal", subdomains: false });
	});

	it("refuses to start on an entry it cannot read, naming it", () => {
		for (const [value, problem] of [
			["10.0.0.0/33", /"10\.0\.0\.0\/33" has a prefix length outside 0-32/],
			["0.0.0.0/0", /would allow every address/],
			["::/0", /would allow every address/],
			["ollama.internal:99999", /port outside 1-65535/],
			["http://127.0.0.1:11434", /is a URL; list its host, with :port to allow that port only/],
			["exa mple", /is not a host name/],
		] as const) {
			expect(() => loadConfig({ ...environment, EGRESS_ALLOW_HOSTS: value }), value).toThrow(problem);
			expect(() => loadConfig({ ...environment, EGRESS_ALLOW_HOSTS: value })).toThrow(/^Invalid configuration: EGRESS_ALLOW_HOSTS: /);
		}
	});
});
