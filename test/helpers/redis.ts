import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { createClient } from "@redis/client";

export interface TestRedis {
	url: string;
	stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
	const client = createClient({ url, socket: { connectTimeout: 1_000, reconnectStrategy: false } });
	client.on("error", () => {});
	try {
		await client.connect();
		await client.ping();
		await client.close();
		return true;
	} catch {
		client.destroy();
		return false;
	}
}

export async function freePort(): Promise<number> {
	const server = createServer().listen(0, "127.0.0.1");
	await new Promise((resolve) => server.once("listening", resolve));
	const { port } = server.address() as { port: number };
	await new Promise((resolve) => server.close(resolve));
	return port;
}

/**
 * A real Redis for the tests: TEST_REDIS_URL, else the machine's on 127.0.0.1:6379, else a
 * redis-server started here on a free port without persistence (stopped by `stop`).
 */
export async function startTestRedis(machineUrl = "redis://127.0.0.1:6379"): Promise<TestRedis> {
	const url = process.env.TEST_REDIS_URL ?? machineUrl;
	if (await answers(url)) return { url, stop: async () => {} };
	if (process.env.TEST_REDIS_URL) throw new Error(`TEST_REDIS_URL (${url}) does not answer`);
	const port = await freePort();
	let child: ChildProcess;
	try {
		child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
		await new Promise<void>((resolve, reject) => {
			child.once("error", reject);
			child.once("spawn", resolve);
		});
	} catch (error) {
		throw new Error("These tests need Redis: run one on 127.0.0.1:6379, set TEST_REDIS_URL, or install redis-server", { cause: error });
	}
	const started = `redis://127.0.0.1:${port}`;
	for (let attempt = 0; attempt < 50 && !(await answers(started)); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
	return {
		url: started,
		async stop() {
			child.kill("SIGTERM");
			if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
		},
	};
}
