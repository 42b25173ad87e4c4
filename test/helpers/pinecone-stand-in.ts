import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

/**
 * A local stand-in for one Pinecone index, speaking the data-plane REST API exactly as
 * @pinecone-database/pinecone 8.2.0 calls it (Pinecone Local needs Docker, which does not run
 * here): POST /vectors/upsert, POST /query, POST /vectors/delete, GET or POST
 * /describe_index_stats, plus the control plane's GET /indexes and GET /indexes/{name}.
 * Vectors are kept in memory per namespace and scored by cosine similarity, like a cosine index.
 * Requests without the Api-Key header are refused with Pinecone's 401 body.
 */
export interface StoredVector {
	values: number[];
	metadata: Record<string, unknown>;
}

export interface PineconeStandIn {
	/** Use as both PINECONE_INDEX_HOST and PINECONE_CONTROLLER_HOST. */
	host: string;
	apiKey: string;
	namespaces: Map<string, Map<string, StoredVector>>;
	requests: { method: string; path: string; body: Record<string, unknown> }[];
	/** Ids and metadata in a namespace, empty when it does not exist. */
	vectorsIn(namespace: string): Map<string, StoredVector>;
	close(): Promise<void>;
}

const INDEX_NAME = "knowledge-stand-in";

function cosine(left: number[], right: number[]): number {
	let dot = 0;
	let leftNorm = 0;
	let rightNorm = 0;
	for (let index = 0; index < left.length; index++) {
		dot += left[index] * right[index];
		leftNorm += left[index] * left[index];
		rightNorm += right[index] * right[index];
	}
	return leftNorm && rightNorm ? dot / Math.sqrt(leftNorm * rightNorm) : 0;
}

/** The metadata filter subset we use: `{field: value}`, `{field: {$eq: value}}`, `{field: {$in: [...]}}`. */
function matchesFilter(metadata: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
	if (!filter) return true;
	return Object.entries(filter).every(([field, condition]) => {
		if (condition && typeof condition === "object" && !Array.isArray(condition)) {
			const operators = condition as Record<string, unknown>;
			if ("$eq" in operators) return metadata[field] === operators.$eq;
			if ("$in" in operators) return (operators.$in as unknown[]).includes(metadata[field]);
			throw new Error(`filter operator not supported by the stand-in: ${JSON.stringify(condition)}`);
		}
		return metadata[field] === condition;
	});
}

export async function startPineconeStandIn(): Promise<PineconeStandIn> {
	const apiKey = "pinecone-stand-in-key";
	const namespaces = new Map<string, Map<string, StoredVector>>();
	const requests: PineconeStandIn["requests"] = [];
	let host = "";
	let dimension = 0;

	const namespaceOf = (name: unknown) => {
		const key = typeof name === "string" && name ? name : "__default__";
		let vectors = namespaces.get(key);
		if (!vectors) {
			vectors = new Map();
			namespaces.set(key, vectors);
		}
		return vectors;
	};
	const indexModel = () => ({
		name: INDEX_NAME,
		dimension,
		metric: "cosine",
		host: host.replace(/^https?:\/\//, ""),
		vector_type: "dense",
		deletion_protection: "disabled",
		spec: { serverless: { cloud: "aws", region: "us-east-1" } },
		status: { ready: true, state: "Ready" },
	});

	function answer(request: IncomingMessage, body: Record<string, unknown>): { status: number; json: unknown } {
		const path = (request.url ?? "/").split("?")[0];
		const route = `${request.method} ${path}`;
		if (route === "POST /vectors/upsert") {
			const vectors = body.vectors as { id: string; values: number[]; metadata?: Record<string, unknown> }[];
			const target = namespaceOf(body.namespace);
			for (const vector of vectors) {
				if (dimension && vector.values.length !== dimension) {
					return { status: 400, json: { code: 3, message: `Vector dimension ${vector.values.length} does not match the dimension of the index ${dimension}`, details: [] } };
				}
				dimension ||= vector.values.length;
				target.set(vector.id, { values: vector.values, metadata: vector.metadata ?? {} });
			}
			return { status: 200, json: { upsertedCount: vectors.length } };
		}
		if (route === "POST /query") {
			const vectors = namespaces.get(typeof body.namespace === "string" && body.namespace ? body.namespace : "__default__") ?? new Map<string, StoredVector>();
			const query = body.vector as number[];
			const filter = body.filter as Record<string, unknown> | undefined;
			const matches = [...vectors.entries()]
				.filter(([, stored]) => matchesFilter(stored.metadata, filter))
				.map(([id, stored]) => ({
					id,
					score: cosine(query, stored.values),
					values: body.includeValues ? stored.values : [],
					...(body.includeMetadata ? { metadata: stored.metadata } : {}),
				}))
				.sort((left, right) => right.score - left.score)
				.slice(0, Number(body.topK));
			return { status: 200, json: { results: [], matches, namespace: body.namespace ?? "", usage: { readUnits: 1 } } };
		}
		if (route === "POST /vectors/delete") {
			const vectors = namespaces.get(typeof body.namespace === "string" && body.namespace ? body.namespace : "__default__");
			if (vectors) {
				if (body.deleteAll) vectors.clear();
				else if (Array.isArray(body.ids)) for (const id of body.ids as string[]) vectors.delete(id);
				else if (body.filter) {
					for (const [id, stored] of vectors) if (matchesFilter(stored.metadata, body.filter as Record<string, unknown>)) vectors.delete(id);
				}
				// Pinecone drops a namespace once it holds no records.
				if (vectors.size === 0) namespaces.delete(String(body.namespace || "__default__"));
			}
			return { status: 200, json: {} };
		}
		if (route === "GET /describe_index_stats" || route === "POST /describe_index_stats") {
			const summary = Object.fromEntries([...namespaces.entries()].map(([name, vectors]) => [name, { vectorCount: vectors.size }]));
			const total = [...namespaces.values()].reduce((sum, vectors) => sum + vectors.size, 0);
			return { status: 200, json: { namespaces: summary, dimension, indexFullness: 0, totalVectorCount: total } };
		}
		if (route === "GET /indexes") return { status: 200, json: { indexes: [indexModel()] } };
		if (route === `GET /indexes/${INDEX_NAME}`) return { status: 200, json: indexModel() };
		return { status: 404, json: { error: { code: "NOT_FOUND", message: `The stand-in does not serve ${route}` }, status: 404 } };
	}

	function handle(request: IncomingMessage, rawBody: string, response: ServerResponse): void {
		let body: Record<string, unknown> = {};
		try {
			body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : {};
		} catch {
			response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ code: 3, message: "Invalid JSON", details: [] }));
			return;
		}
		requests.push({ method: request.method ?? "", path: request.url ?? "", body });
		if (request.headers["api-key"] !== apiKey) {
			response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "UNAUTHENTICATED", message: "Invalid API Key" }, status: 401 }));
			return;
		}
		const { status, json } = answer(request, body);
		response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
	}

	const server = createServer((request, response) => {
		let rawBody = "";
		request.setEncoding("utf8");
		request.on("data", (part: string) => {
			rawBody += part;
		});
		request.on("end", () => handle(request, rawBody, response));
	});
	const loopback = await listenOnLoopback(server);
	host = loopback.origin;
	return {
		host,
		apiKey,
		namespaces,
		requests,
		vectorsIn: (namespace) => namespaces.get(namespace) ?? new Map(),
		close: () => loopback.close(),
	};
}
