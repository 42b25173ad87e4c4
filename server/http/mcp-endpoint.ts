import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createUseCaseContext, type PlatformServices, type UseCaseContext } from "../modules/platform-services";
import type { McpRequestAuthenticator } from "../oauth/authenticate-mcp-request";
import { sendError } from "./middleware/errors";

export type McpServerFactory = (context: UseCaseContext) => McpServer;

/**
 * POST/GET/DELETE /mcp, Streamable HTTP, stateless: every request is authenticated (the grant is
 * re-checked each time), gets an MCP server for its principal and a transport without sessions,
 * so any instance answers any call.
 */
export async function handleMcpRequest(
	services: PlatformServices,
	authenticator: McpRequestAuthenticator,
	createMcpServer: McpServerFactory,
	request: IncomingMessage,
	response: ServerResponse,
): Promise<void> {
	const authentication = await authenticator.authenticate(request);
	if (!authentication.ok) return sendError(request, response, authentication.error);
	const server = createMcpServer(createUseCaseContext(services, authentication.principal));
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	response.on("close", () => {
		transport.close().catch(() => {});
		server.close().catch(() => {});
	});
	await server.connect(transport);
	await transport.handleRequest(request, response);
}

