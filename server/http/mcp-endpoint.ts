import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createUseCaseContext, type PlatformServices, type UseCaseContext } from "../modules/platform-services";
import { consumeMcpRequestQuota } from "../modules/quotas/consume-mcp-request-quota";
import type { McpRequestAuthenticator } from "../oauth/authenticate-mcp-request";
import { AppError } from "../shared/app-error";
import type { UserPrincipal } from "../shared/principal";
import { readJsonBody } from "./middleware/json-body";
import { sendError, sendJson } from "./middleware/errors";

/** What an MCP server knows of the HTTP request it answers: its id, for the audit log and for errors a person quotes. */
export interface McpRequest {
	requestId: string;
}

export type McpServerFactory = (context: UseCaseContext, request: McpRequest) => McpServer;

/** JSON-RPC 2.0 leaves -32000 to -32099 to the implementation; the SDK answers its transport refusals with -32000 too. */
const TRANSPORT_ERROR = -32000;

/**
 * POST /mcp, Streamable HTTP, stateless: every request is authenticated (the grant is re-checked
 * each time), counted against the connection's and the user's rate limits, and gets an MCP server
 * for its principal and a transport without sessions, so any instance answers any call.
 *
 * GET and DELETE are 405 (MCP, Streamable HTTP: "Listening for Messages From the Server" and
 * "Session Management" both allow it): without sessions there is nothing to end, and this server
 * sends nothing on its own, so a GET stream would only hold a connection open forever. The SDK's
 * client and the MCP Inspector take 405 as "no stream offered" and carry on.
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
	if (request.method !== "POST") return refuseMethod(request, response);
	const { principal } = authentication;
	const context = createUseCaseContext(services, principal);
	// Counted before the body is read, as the API's quota is: a refused caller's body is never parsed.
	await consumeMcpRequestQuota(context, principal, 1);
	const body = await readJsonBody(request);
	// A JSON-RPC batch is as many requests as it has messages (the SDK accepts up to 100).
	if (Array.isArray(body) && body.length > 1 && !(await admitBatch(context, principal, body, response))) return;
	const server = createMcpServer(context, { requestId: String(response.getHeader("X-Request-Id") ?? "") });
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	response.on("close", () => {
		transport.close().catch(() => {});
		server.close().catch(() => {});
	});
	await server.connect(transport);
	await transport.handleRequest(request, response, body);
}

function refuseMethod(request: IncomingMessage, response: ServerResponse): void {
	response.setHeader("Allow", "POST");
	// A body sent with a GET or DELETE is never read: the connection closes after the answer.
	if (!request.complete) response.setHeader("Connection", "close");
	sendJson(response, 405, {
		jsonrpc: "2.0",
		id: null,
		error: { code: TRANSPORT_ERROR, message: `Method not allowed: this server offers no stream and no sessions; send JSON-RPC requests with POST, not ${request.method}` },
	});
}

/**
 * Counts the rest of a batch (its first message was counted with the request). Refused, the batch
 * is answered 429 with Retry-After, and in JSON-RPC with one error per request it carried, so a
 * client that reads either learns why and when to retry; none of it runs.
 */
async function admitBatch(context: UseCaseContext, principal: UserPrincipal, batch: unknown[], response: ServerResponse): Promise<boolean> {
	try {
		await consumeMcpRequestQuota(context, principal, batch.length - 1);
		return true;
	} catch (error) {
		if (!(error instanceof AppError) || error.code !== "RATE_LIMITED") throw error;
		for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
		const ids = batch.flatMap((message) => (typeof message === "object" && message !== null && "method" in message && "id" in message ? [(message as { id: unknown }).id] : []));
		sendJson(
			response,
			error.status,
			ids.map((id) => ({ jsonrpc: "2.0", id, error: { code: TRANSPORT_ERROR, message: `${error.code}: ${error.message}`, data: { code: error.code, retryAfterSeconds: Number(error.headers?.["Retry-After"]) } } })),
		);
		return false;
	}
}
