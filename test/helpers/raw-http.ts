import { connect, type Socket } from "node:net";

/** A connected socket to the server at `baseUrl`, for requests fetch would refuse to send or would finish for us. */
export function openSocket(baseUrl: string): Promise<Socket> {
	const url = new URL(baseUrl);
	return new Promise((resolve, reject) => {
		const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
		socket.once("error", reject);
	});
}

export interface RawAnswer {
	/** Status line and headers, each line ending in CRLF. */
	head: string;
	body: string;
	/** The server closed the connection (rather than our timeout ending the wait). */
	closedByServer: boolean;
}

/**
 * Reads what the server sends on `socket` until it closes the connection, or until `timeoutMs`
 * (then closedByServer is false and the socket is destroyed).
 */
export function readUntilClosed(socket: Socket, timeoutMs = 10_000): Promise<RawAnswer> {
	return new Promise((resolve) => {
		let received = "";
		let closedByServer = true;
		socket.setEncoding("utf8");
		socket.on("data", (chunk: string) => {
			received += chunk;
		});
		// A reset after the answer is still a close by the server.
		socket.on("error", () => {});
		const timer = setTimeout(() => {
			closedByServer = false;
			socket.destroy();
		}, timeoutMs);
		socket.once("close", () => {
			clearTimeout(timer);
			const at = received.indexOf("\r\n\r\n");
			resolve(at === -1 ? { head: received, body: "", closedByServer } : { head: received.slice(0, at + 2), body: received.slice(at + 4), closedByServer });
		});
	});
}

/** Writes `request` (latin1, so any byte can be sent) on a fresh socket and reads until the server closes it. */
export async function rawExchange(baseUrl: string, request: string, timeoutMs?: number): Promise<RawAnswer> {
	const socket = await openSocket(baseUrl);
	const answer = readUntilClosed(socket, timeoutMs);
	socket.write(request, "latin1");
	return answer;
}
