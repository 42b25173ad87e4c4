import { isIP } from "node:net";
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import { Egress } from "../../server/egress/egress";
import { ToolListCache } from "../../server/tools/tool-list-cache";
import { Toolbox } from "../../server/tools/toolbox";

/**
 * Private, link-local and metadata addresses are refused at the policy's decision, after
 * resolution and before any connection: a resolver this test controls answers every name, and every
 * address here is refused, so nothing is ever contacted (no test sends traffic off this machine).
 */
const table: Record<string, string[]> = {
	"api.partner.test": ["10.1.2.3"],
	"metadata.partner.test": ["169.254.169.254"],
	"router.partner.test": ["192.168.0.1"],
};
const lookup = async (hostname: string): Promise<LookupAddress[]> => {
	const addresses = table[hostname] ?? (isIP(hostname) ? [hostname] : undefined);
	if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
	return addresses.map((address) => ({ address, family: isIP(address) }));
};

describe("tools and the egress policy", () => {
	it.each([
		["http://10.0.0.7/data", /private network/],
		["http://169.254.169.254/latest/meta-data/", /cloud metadata service/],
		["http://169.254.10.10/x", /link-local/],
		["http://api.partner.test/data", /api\.partner\.test resolves to 10\.1\.2\.3.*private network/],
		["http://metadata.partner.test/", /resolves to 169\.254\.169\.254.*cloud metadata/],
		["http://router.partner.test/", /resolves to 192\.168\.0\.1.*private network/],
	])("an http tool aimed at %s gets the refusal as its result", async (url, reason) => {
		const egress = new Egress({ allowList: parseEgressAllowList("127.0.0.1"), lookup });
		try {
			const toolbox = await Toolbox.prepare(
				[{ type: "http", name: "fetch_data", description: "d", method: "GET", url, parameters: { type: "object", properties: {} } }],
				{ workspaceId: "w", secrets: new Map(), fetch: egress.fetch, mcpToolLists: new ToolListCache(1000), searchKnowledge: async () => "" },
			);
			const record = await toolbox.run({ id: "c1", name: "fetch_data", arguments: "{}" }, new AbortController().signal);
			expect(record.ok).toBe(false);
			expect(record.error).toMatch(/^Refused by the egress policy: /);
			expect(record.error).toMatch(reason);
		} finally {
			await egress.close();
		}
	});

	it("an mcp tool aimed at a metadata address offers nothing (its tool list is refused)", async () => {
		const egress = new Egress({ allowList: parseEgressAllowList("127.0.0.1"), lookup });
		try {
			const toolbox = await Toolbox.prepare([{ type: "mcp", name: "meta", description: "d", url: "http://metadata.partner.test/mcp", allowedTools: ["x"] }], {
				workspaceId: "w",
				secrets: new Map(),
				fetch: egress.fetch,
				mcpToolLists: new ToolListCache(1000),
				searchKnowledge: async () => "",
			});
			expect(toolbox.definitions).toEqual([]);
		} finally {
			await egress.close();
		}
	});
});
