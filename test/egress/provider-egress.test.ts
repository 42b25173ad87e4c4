import { lookup as systemLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import { EgressRefusedError } from "../../server/egress/egress-refused-error";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { AppError } from "../../server/shared/app-error";
import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "../helpers/embeddings-stand-in";
import { runOperatorCli } from "../helpers/operator-cli";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { uploadDocument, waitForDocument } from "../knowledge/knowledge-helpers";

/**
 * Server-side request forgery through a credential's base URL: an organization admin points it at
 * an internal address, and the next generation would post there and hand back what it answered.
 * Here 127.0.0.1 (where the stand-ins listen) is the one address allowed, as EGRESS_ALLOW_HOSTS
 * would allow a local Ollama, and a server on 127.0.0.2 stands for the internal service: it must
 * never see a connection. Names resolve through a resolver the test controls (no /etc/hosts).
 */
const PROVIDER_KEY = "sk-egress-test-0123456789abcdef";
const RESOLVED_BY_TEST: Record<string, string> = { "internal-provider.test": "127.0.0.2", "provider.test": "127.0.0.1" };

const resolved: string[] = [];
const lookup = async (hostname: string): Promise<LookupAddress[]> => {
	resolved.push(hostname);
	const address = RESOLVED_BY_TEST[hostname];
	return address ? [{ address, family: 4 }] : systemLookup(hostname, { all: true });
};

let platform: TestPlatform;
let standIn: ProviderStandIn;
let internal: ProviderStandIn;
let embeddings: EmbeddingsStandIn;

beforeAll(async () => {
	[standIn, internal, embeddings] = await Promise.all([startProviderStandIn(), startProviderStandIn({ host: "127.0.0.2" }), startEmbeddingsStandIn()]);
	platform = await startTestPlatform({ egress: { allowList: parseEgressAllowList("127.0.0.1"), lookup } });
});
afterAll(async () => {
	await platform?.stop();
	await Promise.all([standIn?.close(), internal?.close(), embeddings?.close()]);
});
beforeEach(() => {
	standIn.reset();
	internal.reset();
});

async function workspaceWithBaseUrl(provider: string, baseUrl: string): Promise<TestWorkspace> {
	const workspace = await platform.createWorkspace();
	await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider, apiKey: PROVIDER_KEY, baseUrl });
	return workspace;
}

/** A credential stored while the operator still allowed its address (EGRESS_ALLOW_HOSTS changed since, or an older version stored it). */
async function storeBaseUrlDirectly(workspace: TestWorkspace, provider: string, baseUrl: string): Promise<void> {
	await platform.orm.em.fork().getConnection().execute("update provider_credentials set base_url = ? where workspace_id = ? and provider = ?", [baseUrl, workspace.workspaceId, provider]);
}

/** `maxRetries` 2: a refusal must not be retried all the same; the error-body tests make one attempt. */
async function generate(workspace: TestWorkspace, provider: string, path: "/runtime/execute" | "/runtime/stream" = "/runtime/execute", maxRetries = 2) {
	const response = await platform.request("POST", path, {
		key: workspace.apiKey,
		body: { providerName: provider, model: "any-model", messages: [{ role: "user", content: "What is on the admin page?" }], config: { maxRetries } },
	});
	const text = await response.text();
	return { status: response.status, text, body: response.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : undefined };
}

describe("a provider base URL on an address that is not allowed", () => {
	it("is refused at the call with a message naming the address and the setting, and the internal server receives nothing", async () => {
		for (const provider of ["openai-compatible", "openai", "mistral"]) {
			const workspace = await workspaceWithBaseUrl(provider, standIn.baseUrl);
			await storeBaseUrlDirectly(workspace, provider, internal.baseUrl);
			for (const path of ["/runtime/execute", "/runtime/stream"] as const) {
				const answer = await generate(workspace, provider, path);
				expect(answer.status, `${provider} ${path}`).toBe(400);
				expect(answer.body).toEqual({
					code: "INVALID_REQUEST",
					status: 400,
					message: `The ${provider} base URL is refused: 127.0.0.2 is a special-use address (loopback); the operator can allow it with EGRESS_ALLOW_HOSTS`,
				});
			}
		}
		expect(internal.connections).toBe(0);
		expect(standIn.connections).toBe(0);
	});

	it("is refused when a name resolves to it, while a name resolving to the allowed address is called", async () => {
		const refused = await workspaceWithBaseUrl("openai-compatible", `http://internal-provider.test:${new URL(internal.origin).port}/v1`);
		const answer = await generate(refused, "openai-compatible");
		expect(answer.status).toBe(400);
		expect(answer.body.message).toBe(
			"The openai-compatible base URL is refused: internal-provider.test resolves to 127.0.0.2, which is a special-use address (loopback); the operator can allow it with EGRESS_ALLOW_HOSTS",
		);
		expect(internal.connections).toBe(0);

		// The connection goes to the address the policy checked: this name exists only in the test's resolver.
		const allowed = await workspaceWithBaseUrl("openai-compatible", `http://provider.test:${new URL(standIn.origin).port}/v1`);
		const connectionsBefore = standIn.connections;
		const served = await generate(allowed, "openai-compatible");
		expect(served.status).toBe(200);
		expect(served.body.message.content).toBe("Hello from the stand-in");
		expect(standIn.requests[0].headers.host).toBe(`provider.test:${new URL(standIn.origin).port}`);

		// Checked per connection, not per request: further calls reuse the kept-alive connection, with no new resolution.
		for (let call = 0; call < 3; call++) expect((await generate(allowed, "openai-compatible")).status).toBe(200);
		expect(resolved.filter((name) => name === "provider.test")).toHaveLength(1);
		expect(standIn.connections - connectionsBefore).toBe(1);
	});

	it("never follows a provider's redirect to it: the call is refused and says why", async () => {
		const workspace = await workspaceWithBaseUrl("openai-compatible", standIn.baseUrl);
		for (const status of [302, 307, 308] as const) {
			standIn.script({ kind: "redirect", status, location: `${internal.baseUrl}/chat/completions` });
			const answer = await generate(workspace, "openai-compatible");
			expect(answer.status).toBe(400);
			expect(answer.body.message).toBe(
				`openai-compatible answered with a redirect (HTTP ${status}), which is not followed; set the base URL to the address it redirects to`,
			);
		}
		expect(standIn.requests).toHaveLength(3);
		expect(internal.connections).toBe(0);
	});

	it("is refused when it is set as a literal address, naming the field, through the use case and the operator CLI", async () => {
		const workspace = await platform.createWorkspace();
		const attempt = setProviderCredential(platform.operator(), {
			workspaceId: workspace.workspaceId,
			provider: "openai-compatible",
			apiKey: PROVIDER_KEY,
			baseUrl: "http://169.254.169.254/latest/meta-data",
		});
		await expect(attempt).rejects.toBeInstanceOf(AppError);
		await expect(attempt).rejects.toMatchObject({
			code: "VALIDATION_ERROR",
			fields: [
				{
					field: "baseUrl",
					issue: "Refused by the egress policy: 169.254.169.254 is a special-use address (cloud metadata service); the operator can allow it with EGRESS_ALLOW_HOSTS, naming this exact address",
				},
			],
		});
		const cli = await runOperatorCli(platform.databaseUrl, [
			"provider-credential",
			"set",
			"--workspace",
			workspace.workspaceId,
			"--provider",
			"openai-compatible",
			"--api-key",
			PROVIDER_KEY,
			"--base-url",
			`http://[::ffff:127.0.0.2]:${new URL(internal.origin).port}/v1`,
		]);
		expect(cli.code).toBe(1);
		expect(JSON.parse(cli.stderr || cli.stdout)).toMatchObject({
			error: {
				code: "VALIDATION_ERROR",
				// The CLI names the flag the value came from.
				fields: [{ field: "--base-url", issue: "Refused by the egress policy: ::ffff:7f00:2 is a special-use address (loopback, IPv4-mapped 127.0.0.2); the operator can allow it with EGRESS_ALLOW_HOSTS" }],
			},
		});
		expect(internal.connections).toBe(0);
	});
});

describe("the egress fetch (for calls that follow redirects)", () => {
	it("checks every hop: a redirect from the allowed 127.0.0.1 to 127.0.0.2 is refused before anything is sent there", async () => {
		standIn.script({ kind: "redirect", status: 302, location: `${internal.origin}/admin` });
		const failure = await platform.services.egress.fetch(`${standIn.origin}/start`).catch((error: Error) => error);
		expect(failure).toBeInstanceOf(TypeError);
		expect((failure as Error).cause).toBeInstanceOf(EgressRefusedError);
		expect(((failure as Error).cause as Error).message).toBe("127.0.0.2 is a special-use address (loopback); the operator can allow it with EGRESS_ALLOW_HOSTS");
		expect(internal.connections).toBe(0);

		// A hop to an allowed address is followed.
		standIn.script({ kind: "redirect", status: 302, location: `${standIn.origin}/next` });
		const followed = await platform.services.egress.fetch(`${standIn.origin}/start`);
		expect(followed.status).toBe(200);
		expect(standIn.requests.map((request) => request.path)).toEqual(["/start", "/start", "/next"]);
	});
});

describe("what a provider's error answer can put in front of the caller", () => {
	it("never quotes a body that is not a provider's JSON error (an internal page): only the status", async () => {
		const workspace = await workspaceWithBaseUrl("openai-compatible", standIn.baseUrl);
		standIn.script({
			kind: "raw",
			status: 500,
			headers: { "content-type": "text/html" },
			body: "<html><h1>Admin console</h1><p>root token: internal-admin-token-0451</p></html>",
		});
		const answer = await generate(workspace, "openai-compatible", "/runtime/execute", 0);
		expect(answer.status).toBe(502);
		expect(answer.body.message).toBe("openai-compatible failed with HTTP 500");

		// Nor is an error body past 64 KiB read to the end, whatever its shape: no provider's error is that long.
		standIn.script({ kind: "raw", status: 500, body: JSON.stringify({ error: { message: `internal-admin-token-0451 ${"x".repeat(200_000)}` } }) });
		const oversized = await generate(workspace, "openai-compatible", "/runtime/execute", 0);
		expect(oversized.body.message).toBe("openai-compatible failed with HTTP 500");
	});

	it("quotes a provider's own error message on one line, cut to 300 characters", async () => {
		const workspace = await workspaceWithBaseUrl("openai-compatible", standIn.baseUrl);
		const long = `Invalid model.\n\n${"Internal detail line\r\n".repeat(200)}`;
		standIn.script({ kind: "error", status: 400, message: long });
		const answer = await generate(workspace, "openai-compatible", "/runtime/execute", 0);
		expect(answer.status).toBe(400);
		const prefix = "openai-compatible rejected the request (HTTP 400): ";
		expect(answer.body.message.startsWith(`${prefix}Invalid model. Internal detail line Internal detail line`)).toBe(true);
		expect(answer.body.message).not.toMatch(/[\r\n]/);
		expect(answer.body.message.length - prefix.length).toBeLessThanOrEqual(300);
		expect(answer.body.message.endsWith("…")).toBe(true);
	});

	it("never puts an embeddings endpoint's HTML error page in a document's failure reason", async () => {
		const workspace = await workspaceWithBaseUrl("openai", embeddings.baseUrl);
		const source = await platform.request("POST", "/knowledge/sources", {
			key: workspace.apiKey,
			body: { name: "docs", embeddingModel: { provider: "openai", model: "text-embedding-3-small" } },
		});
		const sourceId = ((await source.json()) as { id: string }).id;
		embeddings.script({ kind: "raw", status: 400, contentType: "text/html", body: "<html>Admin console. root token: internal-admin-token-0451</html>" });
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "notes.txt", "Otters hold hands while they sleep.");
		const failed = await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
		expect(failed).toMatchObject({ status: "FAILED", failureReason: "openai/text-embedding-3-small answered HTTP 400" });
	});

	it("fails a document with the refusal as its reason when the embeddings base URL is refused", async () => {
		const workspace = await workspaceWithBaseUrl("openai", `http://internal-provider.test:${new URL(internal.origin).port}/v1`);
		const source = await platform.request("POST", "/knowledge/sources", {
			key: workspace.apiKey,
			body: { name: "docs", embeddingModel: { provider: "openai", model: "text-embedding-3-small" } },
		});
		const sourceId = ((await source.json()) as { id: string }).id;
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "notes.txt", "Sea otters have the densest fur of any animal.");
		const failed = await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
		expect(failed).toMatchObject({
			status: "FAILED",
			failureReason:
				"openai/text-embedding-3-small: the base URL is refused: internal-provider.test resolves to 127.0.0.2, which is a special-use address (loopback); the operator can allow it with EGRESS_ALLOW_HOSTS",
		});
		expect(internal.connections).toBe(0);
	});
});
