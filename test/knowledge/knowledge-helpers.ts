import type { TestPlatform } from "../helpers/platform";

export interface DocumentBody {
	id: string;
	status: "PENDING" | "PROCESSING" | "READY" | "FAILED";
	failureReason: string | null;
	chunkCount: number;
	byteSize: number;
	contentType: string;
	filename: string;
}

export async function createSource(platform: TestPlatform, key: string, name = "Docs"): Promise<string> {
	const response = await platform.request("POST", "/knowledge/sources", { key, body: { name } });
	if (response.status !== 201) throw new Error(`create source: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { id: string }).id;
}

export async function uploadDocument(
	platform: TestPlatform,
	key: string,
	sourceId: string,
	filename: string,
	content: string | Buffer,
	contentType?: string,
): Promise<DocumentBody> {
	const response = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, {
		key,
		body: { filename, contentBase64: Buffer.from(content).toString("base64"), ...(contentType ? { contentType } : {}) },
	});
	if (response.status !== 201) throw new Error(`upload ${filename}: ${response.status} ${await response.text()}`);
	return (await response.json()) as DocumentBody;
}

/** Polls the document until it reaches one of `statuses` or the deadline passes; never a fixed sleep. */
export async function waitForDocument(
	platform: TestPlatform,
	key: string,
	sourceId: string,
	documentId: string,
	statuses: DocumentBody["status"][] = ["READY", "FAILED"],
	timeoutMs = 20_000,
): Promise<DocumentBody> {
	const deadline = Date.now() + timeoutMs;
	let last: DocumentBody | undefined;
	while (Date.now() < deadline) {
		const response = await platform.request("GET", `/knowledge/sources/${sourceId}/documents/${documentId}`, { key });
		last = (await response.json()) as DocumentBody;
		if (statuses.includes(last.status)) return last;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`document ${documentId} did not reach ${statuses.join("/")} in ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
}

/** Polls a condition with a deadline. */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const value = await probe();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`timed out waiting for ${what}`);
}

/** `GET .../search?query=…&topK=…` from named parameters. */
export function searchPath(sourceId: string, parameters: Record<string, string | number>): string {
	const query = new URLSearchParams(Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, String(value)])));
	return `/knowledge/sources/${sourceId}/search?${query}`;
}

export async function search(platform: TestPlatform, key: string, sourceId: string, parameters: Record<string, string | number>) {
	const response = await platform.request("GET", searchPath(sourceId, parameters), { key });
	if (response.status !== 200) throw new Error(`search: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { data: { chunkId: string; documentId: string; filename: string; text: string; score: number; location: Record<string, unknown> }[] }).data;
}

/** Polls /healthz one request after another until stopped; keeps the slowest answer. */
export function pollHealth(platform: TestPlatform): { stop(): Promise<{ slowestMs: number; answers: number; failures: number }> } {
	let running = true;
	let slowestMs = 0;
	let answers = 0;
	let failures = 0;
	const loop = (async () => {
		while (running) {
			const started = performance.now();
			const response = await fetch(`${platform.url}/healthz`).catch(() => null);
			await response?.arrayBuffer();
			slowestMs = Math.max(slowestMs, performance.now() - started);
			answers++;
			if (response?.status !== 200) failures++;
		}
	})();
	return {
		async stop() {
			running = false;
			await loop;
			return { slowestMs, answers, failures };
		},
	};
}
