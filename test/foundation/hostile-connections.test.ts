import { once } from "node:events";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { openSocket, rawExchange, readUntilClosed } from "../helpers/raw-http";

let platform: TestPlatform;
let workspace: TestWorkspace;

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
});
afterAll(() => platform?.stop());

const headers = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;

describe("malformed paths", () => {
	it("a malformed percent-encoding is 400 VALIDATION_ERROR on contract routes and on Express's (presigned PUT)", async () => {
		for (const [method, path] of [
			["GET", "/knowledge/sources/%E0%A4%A/documents"],
			["DELETE", "/knowledge/sources/ks_%ED%A0%80"],
			["POST", "/runtime/assistants/%E0%A4%A"],
			["PUT", "/uploads/%E0%A4%A"],
		]) {
			const response = await platform.request(method, path, { key: workspace.apiKey, ...(method === "POST" || method === "PUT" ? { body: { input: "hi" } } : {}) });
			expect(response.status, `${method} ${path}`).toBe(400);
			const envelope = await response.json();
			expect(envelope).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
			expect(envelope.fields[0].issue).toBe("Malformed percent-encoding");
		}
	});
});

describe("errors answered before the body was read", () => {
	it("a slow body after a 401 gets the envelope and loses its connection at once", async () => {
		const socket = await openSocket(platform.url);
		const answer = readUntilClosed(socket, 5_000);
		// Announces 1 MB, sends a few bytes, then keeps the connection open as a slow client would.
		socket.write(headers(["POST /knowledge/sources HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer csk_live_wrong", "Content-Type: application/json", "Content-Length: 1000000"]));
		socket.write('{"name":"');
		const { head, body, closedByServer } = await answer;
		expect(head).toMatch(/^HTTP\/1\.1 401 /);
		expect(head).toMatch(/\r\nconnection: close\r\n/i);
		expect(JSON.parse(body)).toMatchObject({ code: "INVALID_CREDENTIALS", status: 401 });
		expect(closedByServer, "the server kept the connection of a rejected slow body").toBe(true);
	});

	it("a small body that stalls after a 401 is waited for briefly, then its connection is closed", async () => {
		const socket = await openSocket(platform.url);
		const answer = readUntilClosed(socket, 10_000);
		socket.write(headers(["POST /knowledge/sources HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer csk_live_wrong", "Content-Type: application/json", "Content-Length: 100"]));
		socket.write('{"name":"');
		const { head, closedByServer } = await answer;
		expect(head).toMatch(/^HTTP\/1\.1 401 /);
		expect(closedByServer, "the server kept the connection of a stalled body").toBe(true);
	});

	it("the same on the runtime router; a refused request whose small body arrives keeps its keep-alive connection", async () => {
		const slow = await openSocket(platform.url);
		const slowAnswer = readUntilClosed(slow, 5_000);
		slow.write(headers(["POST /runtime/execute HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 500000"]));
		const { head, closedByServer } = await slowAnswer;
		expect(head).toMatch(/^HTTP\/1\.1 401 /);
		expect(closedByServer).toBe(true);

		// Fully sent (one write), then refused: nothing is left unread, so the connection stays usable.
		const socket = await openSocket(platform.url);
		const request = `${headers(["POST /runtime/execute HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 2"])}{}`;
		socket.setEncoding("utf8");
		let received = "";
		const twoAnswers = new Promise<void>((resolve) =>
			socket.on("data", (chunk: string) => {
				received += chunk;
				if (received.match(/HTTP\/1\.1 401 /g)?.length === 2) resolve();
			}),
		);
		socket.write(request);
		socket.write(request.replace("POST /runtime/execute", "POST /knowledge/sources"));
		await twoAnswers;
		expect(received).not.toMatch(/connection: close/i);
		socket.destroy();
	});
});

describe("oversized headers", () => {
	it("431 in the envelope, with the connection closed", async () => {
		const answer = await rawExchange(platform.url, headers(["GET /healthz HTTP/1.1", "Host: 127.0.0.1", `X-Padding: ${"a".repeat(20_000)}`]));
		expect(answer.head).toMatch(/^HTTP\/1\.1 431 /);
		expect(answer.head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
		expect(answer.head).toMatch(/\r\nx-request-id: req_/i);
		expect(JSON.parse(answer.body)).toEqual({ code: "INVALID_REQUEST", status: 431, message: expect.stringContaining("headers") });
		expect(answer.closedByServer).toBe(true);
	});

	it("oversized chunk extensions are 413 PAYLOAD_TOO_LARGE in the envelope", async () => {
		const request = `${headers(["POST /knowledge/sources HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Transfer-Encoding: chunked"])}2;${"x".repeat(20_000)}\r\n{}\r\n0\r\n\r\n`;
		const answer = await rawExchange(platform.url, request);
		expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
		expect(JSON.parse(answer.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
	});

	it("a request line Node cannot parse is a 400 envelope", async () => {
		const answer = await rawExchange(platform.url, "NOT HTTP AT ALL\r\n\r\n");
		expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
		expect(JSON.parse(answer.body)).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
	});
});

describe("socket limits", () => {
	let limited: TestPlatform;
	let key: string;
	beforeAll(async () => {
		limited = await startTestPlatform({ http: { maxConnections: 3, requestTimeoutMs: 600 } });
		key = (await limited.createWorkspace()).apiKey;
	});
	afterAll(() => limited?.stop());

	it("a body that does not arrive within the request timeout is 408 in the envelope, and the connection closes", async () => {
		const socket = await openSocket(limited.url);
		const answer = readUntilClosed(socket, 10_000);
		socket.write(headers(["POST /knowledge/sources HTTP/1.1", "Host: 127.0.0.1", `Authorization: Bearer ${key}`, "Content-Type: application/json", "Content-Length: 100"]));
		socket.write('{"name":');
		const { head, body, closedByServer } = await answer;
		expect(head).toMatch(/^HTTP\/1\.1 408 /);
		expect(JSON.parse(body)).toMatchObject({ code: "INVALID_REQUEST", status: 408 });
		expect(closedByServer).toBe(true);
	});

	it("at most HTTP_MAX_CONNECTIONS connections: more are dropped, and served again once one closes", async () => {
		const accepted: Socket[] = [];
		const onConnection = (socket: Socket) => accepted.push(socket);
		limited.server.on("connection", onConnection);
		try {
			const open = await Promise.all([openSocket(limited.url), openSocket(limited.url), openSocket(limited.url)]);
			while (accepted.length < 3) await once(limited.server, "connection");
			const dropped = once(limited.server, "drop");
			const extra = await openSocket(limited.url);
			await dropped;
			const extraAnswer = await readUntilClosed(extra, 5_000);
			expect(extraAnswer).toMatchObject({ head: "", closedByServer: true });

			const freed = once(accepted[0], "close");
			open[0].destroy();
			await freed;
			const health = await rawExchange(limited.url, headers(["GET /healthz HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]));
			expect(health.head).toMatch(/^HTTP\/1\.1 200 /);
			for (const socket of open) socket.destroy();
		} finally {
			limited.server.off("connection", onConnection);
		}
	});
});
