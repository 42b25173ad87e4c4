import { createHash } from "node:crypto";
import { EventEmitter, once } from "node:events";
import { createServer } from "node:http";
import { listenOnLoopback } from "./loopback-server";

/**
 * A local stand-in for OpenAI's embeddings endpoint (POST /v1/embeddings, the shape Mistral and
 * OpenAI-compatible servers share): `{data: [{object, embedding, index}], model, usage}`.
 * By default each text gets a deterministic bag-of-words vector of `dimensions` floats, so
 * similar texts really are near each other; tests script errors or odd answers for the next
 * requests.
 */
export type EmbeddingsAnswer =
	| { kind: "vectors"; dimensions?: number }
	| { kind: "error"; status: number; message: string; headers?: Record<string, string> }
	/** An error answered with any body (an HTML page from whatever listens at the address). */
	| { kind: "raw"; status: number; body: string; contentType: string }
	/** Never answer (an embedder stuck mid-document). */
	| { kind: "hang" };

export interface EmbeddingsStandIn {
	/** Base URL in OpenAI's convention, ending in /v1. */
	baseUrl: string;
	dimensions: number;
	requests: { receivedAt: number; authorization?: string; body: { model: string; input: string[] }; status: number }[];
	script(...answers: EmbeddingsAnswer[]): void;
	/** Resolves when the next request arrives. */
	nextRequest(): Promise<void>;
	close(): Promise<void>;
}

export function bagOfWordsVector(text: string, dimensions: number): number[] {
	const vector = new Array<number>(dimensions).fill(0);
	for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
		vector[createHash("sha256").update(word).digest().readUInt32LE(0) % dimensions] += 1;
	}
	const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
	return vector.map((value) => value / norm);
}

export async function startEmbeddingsStandIn(options: { dimensions?: number } = {}): Promise<EmbeddingsStandIn> {
	const dimensions = options.dimensions ?? 32;
	const queue: EmbeddingsAnswer[] = [];
	const requests: EmbeddingsStandIn["requests"] = [];
	const arrivals = new EventEmitter();
	const server = createServer((request, response) => {
		let raw = "";
		request.setEncoding("utf8");
		request.on("data", (part: string) => {
			raw += part;
		});
		request.on("end", () => {
			const body = JSON.parse(raw || "{}") as { model: string; input: string[] };
			const answer = request.method === "POST" && request.url === "/v1/embeddings" ? (queue.shift() ?? { kind: "vectors" }) : { kind: "error" as const, status: 404, message: "Not found" };
			const status = answer.kind === "error" || answer.kind === "raw" ? answer.status : answer.kind === "hang" ? 0 : 200;
			requests.push({ receivedAt: Date.now(), authorization: request.headers.authorization, body, status });
			arrivals.emit("request");
			if (answer.kind === "hang") return;
			if (answer.kind === "raw") {
				response.writeHead(answer.status, { "content-type": answer.contentType });
				response.end(answer.body);
				return;
			}
			if (answer.kind === "error") {
				// OpenAI's error envelope.
				response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
				response.end(JSON.stringify({ error: { message: answer.message, type: "requests", param: null, code: null } }));
				return;
			}
			const size = answer.dimensions ?? dimensions;
			response.writeHead(200, { "content-type": "application/json" });
			response.end(
				JSON.stringify({
					object: "list",
					data: body.input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWordsVector(text, size) })),
					model: body.model,
					usage: { prompt_tokens: body.input.join(" ").split(/\s+/).length, total_tokens: body.input.join(" ").split(/\s+/).length },
				}),
			);
		});
	});
	const loopback = await listenOnLoopback(server);
	return {
		baseUrl: `${loopback.origin}/v1`,
		dimensions,
		requests,
		script: (...answers) => {
			queue.push(...answers);
		},
		nextRequest: () => once(arrivals, "request").then(() => undefined),
		close: () => loopback.close(),
	};
}
