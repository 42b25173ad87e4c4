/**
 * The floor for bench/runtime.ts: a bare keep-alive reverse proxy in its own process, doing only
 * what any proxy must (read the body, parse and re-serialise the JSON, forward it over a pooled
 * connection, relay the answer). Prints `{"url": ...}` once listening; stops on SIGTERM.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const upstream = new URL(process.env.UPSTREAM_URL ?? "");
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on("data", (chunk: Buffer) => chunks.push(chunk));
	request.on("end", () => {
		const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
		const forwarded = http.request(
			{
				agent,
				host: upstream.hostname,
				port: upstream.port,
				path: upstream.pathname,
				method: "POST",
				headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: request.headers.authorization ?? "" },
			},
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/json" });
				answer.pipe(response);
			},
		);
		forwarded.on("error", () => {
			response.writeHead(502).end();
		});
		forwarded.end(body);
	});
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
	process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.once("SIGTERM", () => {
	server.close();
	server.closeAllConnections();
	agent.destroy();
});
