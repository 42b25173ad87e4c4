import type { LookupAddress, LookupOptions } from "node:dns";
import { Agent, buildConnector, errors } from "undici";
import type { EgressPolicy } from "./egress-policy";

/** undici's connect timeout, also the bound on resolving the name first (DNS is part of connecting). */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Hands the addresses the policy checked for a host to the socket's `lookup`, so the socket
 * connects to exactly those (no second resolution that could answer differently). Node's
 * net.connect calls `lookup` synchronously inside the connector call that `offer` precedes; if it
 * ever did not, or asked about another name, `lookup` resolves and checks again itself: no address
 * reaches a socket unchecked either way.
 */
class CheckedAddresses {
	private offered: { hostname: string; addresses: LookupAddress[] } | undefined;

	constructor(private readonly policy: EgressPolicy) {}

	offer(hostname: string, addresses: LookupAddress[]): void {
		this.offered = { hostname, addresses };
	}

	withdraw(): void {
		this.offered = undefined;
	}

	readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
		const offered = this.offered?.hostname === hostname ? this.offered.addresses : undefined;
		this.offered = undefined;
		const answer = (addresses: LookupAddress[]) => {
			const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
			if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: "ENOTFOUND" }), []);
			if (options.all) return callback(null, wanted);
			callback(null, wanted[0].address, wanted[0].family);
		};
		if (offered) return answer(offered);
		// The port is unknown here; only a name-and-port allow-list entry could differ, and the connector already checked with it.
		this.policy.resolve(hostname, 0).then(answer, (error: NodeJS.ErrnoException) => callback(error, []));
	};
}

/**
 * A connector (undici's `connect` option) that asks the policy first: resolve the name, check every
 * address, refuse with EgressRefusedError before any socket exists, or connect `base` to the checked
 * addresses. Exported for the policy's tests, which pass a `base` that records instead of connecting.
 */
export function createEgressConnector(
	policy: EgressPolicy,
	base: buildConnector.connector,
	options: { checked?: CheckedAddresses; timeoutMs?: number } = {},
): buildConnector.connector {
	const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
	return (connectOptions, callback) => {
		const port = Number(connectOptions.port) || (connectOptions.protocol === "https:" ? 443 : 80);
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new errors.ConnectTimeoutError(`Resolving ${connectOptions.hostname} took longer than ${timeoutMs} ms`)), timeoutMs);
		});
		Promise.race([policy.resolve(connectOptions.hostname, port), timedOut])
			.finally(() => clearTimeout(timer))
			.then(
				(addresses) => {
					options.checked?.offer(connectOptions.hostname, addresses);
					try {
						base(connectOptions, callback);
					} finally {
						options.checked?.withdraw();
					}
				},
				(error: Error) => callback(error, null),
			);
	};
}

export interface EgressAgentOptions extends Omit<Agent.Options, "connect"> {
	/** undici's socket options (TLS `ca`, connect `timeout`); a `lookup` given here is replaced by the policy's. */
	connect?: buildConnector.BuildOptions;
}

/**
 * An undici Agent whose every new connection goes through the policy (createEgressConnector). The
 * check runs once per connection, not per request: a pooled keep-alive connection was checked when
 * it opened, and a request to another origin (a redirect included) needs a connection of its own,
 * so it is checked too.
 */
export function createEgressAgent(policy: EgressPolicy, options: EgressAgentOptions = {}): Agent {
	const { connect, ...agentOptions } = options;
	const checked = new CheckedAddresses(policy);
	const base = buildConnector({ ...connect, lookup: checked.lookup } as buildConnector.BuildOptions);
	const timeoutMs = typeof connect?.timeout === "number" ? connect.timeout : DEFAULT_CONNECT_TIMEOUT_MS;
	return new Agent({ ...agentOptions, connect: createEgressConnector(policy, base, { checked, timeoutMs }) });
}
