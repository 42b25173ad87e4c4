import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { callMcp, connectMcpClient } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";

describe("OAuth 2.1 for /mcp: discovery, challenge, the whole flow", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let issuer: string;
	const email = `member-${Date.now()}@example.com`;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		issuer = platform.services.settings.publicBaseUrl;
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("publishes authorization server metadata (RFC 8414) with PKCE S256 only, registration and client metadata documents", async () => {
		const response = await fetch(`${platform.url}/.well-known/oauth-authorization-server`);
		expect(response.status).toBe(200);
		const metadata = (await response.json()) as Record<string, unknown>;
		expect(metadata).toMatchObject({
			issuer,
			authorization_endpoint: `${issuer}/oauth/authorize`,
			token_endpoint: `${issuer}/oauth/token`,
			registration_endpoint: `${issuer}/oauth/register`,
			jwks_uri: `${issuer}/.well-known/jwks.json`,
			code_challenge_methods_supported: ["S256"],
			response_types_supported: ["code"],
			authorization_response_iss_parameter_supported: true,
			client_id_metadata_document_supported: true,
		});
		expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["mcp:read", "mcp:write", "mcp:admin"]));
	});

	it("publishes protected resource metadata (RFC 9728) for /mcp at both addresses", async () => {
		for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
			const response = await fetch(`${platform.url}${path}`);
			expect(response.status).toBe(200);
			expect(await response.json()).toMatchObject({ resource: `${issuer}/mcp`, authorization_servers: [issuer], scopes_supported: ["mcp:read", "mcp:write", "mcp:admin"] });
		}
	});

	it("publishes an ES256 public key and nothing private", async () => {
		const { keys } = (await (await fetch(`${platform.url}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
		expect(keys.length).toBeGreaterThan(0);
		expect(keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
		expect(keys.every((key) => key.d === undefined)).toBe(true);
	});

	it("answers an unauthenticated /mcp call with 401 and a challenge naming the resource metadata", async () => {
		const response = await callMcp(platform.url, undefined, "tools/list");
		expect(response.status).toBe(401);
		expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`);
		expect(await response.json()).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
	});

	it("connects a client through sign-in and consent, and /mcp then knows the user, organization and scopes", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, scopes: ["mcp:write"] });
		expect(tokens.scope.split(" ").sort()).toEqual(["mcp:read", "mcp:write"]);
		expect(tokens.refreshToken).toEqual(expect.any(String));
		const response = await callMcp(platform.url, tokens.accessToken, "tools/call", { name: "whoami", arguments: {} });
		expect(response.status).toBe(200);
		const { result } = (await response.json()) as { result: { structuredContent: Record<string, unknown> } };
		expect(result.structuredContent).toMatchObject({
			user: { email },
			clientId: tokens.client.clientId,
			organization: { id: workspace.organizationId },
			allOrganizations: false,
			scopes: ["mcp:read", "mcp:write"],
		});
	});
});
