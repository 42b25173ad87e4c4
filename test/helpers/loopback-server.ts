import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface LoopbackServer {
	port: number;
	origin: string;
	/** Destroys open keep-alive sockets too, so a test's stop never waits for idle clients. */
	close(): Promise<void>;
}

/** Listens on 127.0.0.1 at a free port: how every stand-in of an outside service starts. */
export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
	const sockets = new Set<Socket>();
	server.on("connection", (socket) => {
		sockets.add(socket);
		socket.once("close", () => sockets.delete(socket));
	});
	server.listen(0, "127.0.0.1");
	await once(server, "listening");
	const { port } = server.address() as AddressInfo;
	return {
		port,
		origin: `http://127.0.0.1:${port}`,
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
