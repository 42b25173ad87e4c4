import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";

const base = { SECRET_KEY: "config-test-secret-key-0123456789abcdef" };

describe("knowledge storage and vector store configuration", () => {
	it("defaults to local disk and PostgreSQL vectors", () => {
		const { knowledge } = loadConfig(base);
		expect(knowledge.storage).toEqual({ driver: "local" });
		expect(knowledge.vectorStore).toBe("postgres");
		expect(knowledge.pinecone).toBeUndefined();
	});

	it("reads S3 settings, path-style by default only with a custom endpoint", () => {
		const withEndpoint = loadConfig({ ...base, KNOWLEDGE_STORAGE: "s3", S3_BUCKET: "docs", S3_ENDPOINT: "http://127.0.0.1:9000", S3_ACCESS_KEY_ID: "id", S3_SECRET_ACCESS_KEY: "secret" });
		expect(withEndpoint.knowledge.storage).toEqual({
			driver: "s3",
			bucket: "docs",
			region: "us-east-1",
			endpoint: "http://127.0.0.1:9000",
			accessKeyId: "id",
			secretAccessKey: "secret",
			forcePathStyle: true,
		});
		const aws = loadConfig({ ...base, KNOWLEDGE_STORAGE: "s3", S3_BUCKET: "docs", S3_REGION: "eu-west-3" });
		expect(aws.knowledge.storage).toMatchObject({ region: "eu-west-3", forcePathStyle: false });
		const forced = loadConfig({ ...base, KNOWLEDGE_STORAGE: "s3", S3_BUCKET: "docs", S3_ENDPOINT: "https://x.r2.cloudflarestorage.com", S3_FORCE_PATH_STYLE: "false" });
		expect(forced.knowledge.storage).toMatchObject({ forcePathStyle: false });
	});

	it("reads Pinecone settings", () => {
		const { knowledge } = loadConfig({ ...base, KNOWLEDGE_VECTOR_STORE: "pinecone", PINECONE_API_KEY: "pc-key", PINECONE_INDEX_HOST: "https://idx-abc.svc.pinecone.io" });
		expect(knowledge.vectorStore).toBe("pinecone");
		expect(knowledge.pinecone).toEqual({ apiKey: "pc-key", indexHost: "https://idx-abc.svc.pinecone.io", controllerHost: undefined });
	});

	it.each([
		[{ KNOWLEDGE_STORAGE: "s3" }, "S3_BUCKET"],
		[{ KNOWLEDGE_STORAGE: "s3", S3_BUCKET: "docs", S3_ACCESS_KEY_ID: "id" }, "S3_SECRET_ACCESS_KEY"],
		[{ KNOWLEDGE_VECTOR_STORE: "pinecone", PINECONE_INDEX_HOST: "https://idx.svc.pinecone.io" }, "PINECONE_API_KEY"],
		[{ KNOWLEDGE_VECTOR_STORE: "pinecone", PINECONE_API_KEY: "k" }, "PINECONE_INDEX_HOST"],
		[{ KNOWLEDGE_STORAGE: "gcs" }, "KNOWLEDGE_STORAGE"],
	])("fails fast on %o, naming %s", (environment, name) => {
		expect(() => loadConfig({ ...base, ...environment })).toThrow(name);
	});
});
