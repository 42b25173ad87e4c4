import type { Agent } from "undici";
import { type EgressAllowList, NO_EGRESS_EXCEPTIONS } from "./allow-list";
import { createEgressAgent } from "./egress-agent";
import { createEgressFetch, type EgressFetch } from "./egress-fetch";
import { type EgressLookup, EgressPolicy } from "./egress-policy";

/** EGRESS_ALLOW_HOSTS, parsed (server/config.ts); `lookup` replaces the system resolver (tests). */
export interface EgressSettings {
	allowList: EgressAllowList;
	lookup?: EgressLookup;
}

export const DEFAULT_EGRESS_SETTINGS: Readonly<EgressSettings> = Object.freeze({ allowList: NO_EGRESS_EXCEPTIONS });

/**
 * Every outbound call whose destination a tenant's settings decide (a provider credential's base
 * URL, and the assistants' tool calls to come) goes through this one dispatcher, whose connections
 * are checked by the egress policy: loopback, private, link-local, cloud metadata and other
 * special-use addresses are refused after resolution, unless EGRESS_ALLOW_HOSTS lists them.
 *
 * The dispatcher keeps warm keep-alive connections per origin for every workspace, with no limit
 * per origin (a generation can hold one for minutes). Its header and body timeouts are off:
 * callers own their deadlines and abort through `signal` (GenerationDeadline for generations).
 * One per platform, built by the composition root and closed with it.
 */
export class Egress {
	readonly policy: EgressPolicy;
	readonly dispatcher: Agent;
	/** fetch over `dispatcher`; follows redirects unless told not to, checking every hop (egress-fetch.ts). */
	readonly fetch: EgressFetch;

	constructor(settings: EgressSettings = DEFAULT_EGRESS_SETTINGS) {
		this.policy = new EgressPolicy({
			allowList: settings.allowList,
			lookup: settings.lookup,
			allowance: (category) =>
				category === "cloud-metadata" ? "the operator can allow it with EGRESS_ALLOW_HOSTS, naming this exact address" : "the operator can allow it with EGRESS_ALLOW_HOSTS",
		});
		this.dispatcher = createEgressAgent(this.policy, { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000, connect: { timeout: 10_000 } });
		this.fetch = createEgressFetch(this.dispatcher);
	}

	async close(): Promise<void> {
		await this.dispatcher.close();
	}
}
