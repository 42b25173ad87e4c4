import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface LoopbackServer {
	port: number;
	origin: string;
	/** Destroys open keep-alive sockets too, so a test's stop never waits for idle clients. */
	close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at a free port: how every stand-in of an outside service starts. Another
 * loopback address (127.0.0.2) stands for an internal service the egress policy must keep tenants from.
 */
export async function listenOnLoopback(server: Server, host = "127.0.0.1"): Promise<LoopbackServer> {
	const sockets = new Set<Socket>();
	server.on("connection", (socket) => {
		sockets.add(socket);
		socket.once("close", () => sockets.delete(socket));
	});
	server.listen(0, host);
	await once(server, "listening");
	const { port } = server.address() as AddressInfo;
	return {
		port,
		origin: `http://${host}:${port}`,
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
