import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../server/mcp/create-mcp-server";
import { createUseCaseContext } from "../../server/modules/platform-services";
import { MCP_SCOPES, type McpScope, type UserPrincipal } from "../../server/shared/principal";
import type { TestPlatform } from "../helpers/platform";

let connections = 0;

/** A user principal as the /mcp endpoint builds it from an access token. */
export function userPrincipal(userId: string, options: { organizationId: string | null; scopes?: readonly McpScope[] }): UserPrincipal {
	connections += 1;
	return {
		kind: "user",
		userId,
		clientId: `client-test-${connections}`,
		connectionId: `connection-test-${connections}`,
		organizationId: options.organizationId,
		scopes: new Set(options.scopes ?? MCP_SCOPES),
	};
}

/** An MCP client talking to the control plane, as `principal`, over the SDK's in-memory transport pair. */
export async function connectAs(platform: TestPlatform, principal: UserPrincipal): Promise<McpSession> {
	const server = createMcpServer(createUseCaseContext(platform.services, principal));
	const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
	const client = new Client({ name: "test-client", version: "1.0.0" });
	await server.connect(serverTransport);
	await client.connect(clientTransport);
	return new McpSession(client, principal);
}

export class McpSession {
	constructor(
		readonly client: Client,
		readonly principal: UserPrincipal,
	) {}

	/** Calls a tool; returns its structured result, or throws with the tool error's text. */
	async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
		const result = await this.raw(name, args);
		if (result.isError) throw new Error(`${name} failed: ${errorText(result)}`);
		return result.structuredContent as T;
	}

	/** Calls a tool that must fail; returns the tool error's text. */
	async fail(name: string, args: Record<string, unknown> = {}): Promise<string> {
		const result = await this.raw(name, args);
		if (!result.isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(result.structuredContent)}`);
		return errorText(result);
	}

	raw(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
		return this.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
	}

	close(): Promise<void> {
		return this.client.close();
	}
}

function errorText(result: CallToolResult): string {
	return result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}
