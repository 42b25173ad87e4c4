import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPineconeStandIn, type PineconeStandIn } from "../helpers/pinecone-stand-in";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

describe("Pinecone as a source's vector index", () => {
	let pinecone: PineconeStandIn;
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		pinecone = await startPineconeStandIn();
		platform = await startTestPlatform({
			knowledge: { vectorStore: "pinecone", pinecone: { apiKey: pinecone.apiKey, indexHost: pinecone.host, controllerHost: pinecone.host } },
		});
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
		await pinecone?.close();
	});

	const query = async <T>(sql: string, parameters: unknown[]): Promise<T[]> => platform.orm.em.fork().getConnection().execute(sql, parameters);

	it("ingests into the source's namespace, searches through Pinecone, and deletes there too", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "pinecone docs");
		expect(await query("select vector_store from knowledge_sources where id = ?", [sourceId])).toEqual([{ vector_store: "pinecone" }]);
		const kept = await uploadDocument(platform, workspace.apiKey, sourceId, "kept.md", "# Kites\n\nVermilion kites map the winds over Harrowgate bay.");
		const doomed = await uploadDocument(platform, workspace.apiKey, sourceId, "doomed.txt", "Glass tortoises carry lanterns through the Oakhollow marsh.");
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, kept.id)).toMatchObject({ status: "READY", chunkCount: 1 });
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, doomed.id)).toMatchObject({ status: "READY", chunkCount: 1 });

		// Records are the chunk rows' ids with {documentId}; PostgreSQL keeps no copy of the vectors.
		const chunks = await query<{ id: string; document_id: string; embedding: Buffer | null }>(
			"select id, document_id, embedding from knowledge_chunks where source_id = ? order by id",
			[sourceId],
		);
		expect(chunks).toHaveLength(2);
		const stored = pinecone.vectorsIn(sourceId);
		expect([...stored.keys()].sort()).toEqual(chunks.map((chunk) => chunk.id));
		for (const chunk of chunks) {
			expect(chunk.embedding).toBeNull();
			expect(stored.get(chunk.id)).toMatchObject({ metadata: { documentId: chunk.document_id } });
			expect(stored.get(chunk.id)?.values).toHaveLength(512);
		}

		const [hit] = await search(platform, workspace.apiKey, sourceId, { query: "glass tortoises Oakhollow", topK: 1 });
		expect(hit).toMatchObject({ documentId: doomed.id, filename: "doomed.txt" });
		const queries = pinecone.requests.filter((request) => request.path === "/query");
		expect(queries.at(-1)?.body).toMatchObject({ namespace: sourceId, topK: 50 });

		const deleted = await platform.request("DELETE", `/knowledge/sources/${sourceId}/documents/${doomed.id}`, { key: workspace.apiKey });
		expect(deleted.status).toBe(200);
		expect([...pinecone.vectorsIn(sourceId).values()].map((vector) => vector.metadata.documentId)).toEqual([kept.id]);
		expect((await search(platform, workspace.apiKey, sourceId, { query: "glass tortoises Oakhollow", topK: 5 })).map((result) => result.documentId)).not.toContain(doomed.id);
	});

	it("re-ingesting a document replaces its vectors instead of adding to them", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "retried");
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "twice.txt", "Indigo herons fish the Brackenmoor weirs.");
		await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
		const before = [...pinecone.vectorsIn(sourceId).keys()];
		expect(before).toHaveLength(1);
		// A retry is only allowed from FAILED; set it as a failed attempt would, vectors still in Pinecone.
		await query("update knowledge_documents set status = 'FAILED', failure_reason = 'test' where id = ?", [document.id]);
		const retried = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/retry`, { key: workspace.apiKey });
		expect(retried.status).toBe(200);
		await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["READY"]);
		const after = [...pinecone.vectorsIn(sourceId).keys()];
		expect(after).toHaveLength(1);
		expect(after).not.toEqual(before);
		expect(await query("select id from knowledge_chunks where document_id = ?", [document.id])).toEqual([{ id: after[0] }]);
	});

	it("deleting the source leaves nothing in Pinecone, PostgreSQL or on disk", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "short-lived");
		const other = await createSource(platform, workspace.apiKey, "neighbour");
		const documents = [
			await uploadDocument(platform, workspace.apiKey, sourceId, "a.md", "# Bells\n\nBronze bells ring under the Sablewood bridge."),
			await uploadDocument(platform, workspace.apiKey, sourceId, "b.txt", "Sablewood otters polish the bronze bells at dusk."),
			await uploadDocument(platform, workspace.apiKey, other, "c.txt", "The neighbour's bronze bells stay where they are."),
		];
		await waitForDocument(platform, workspace.apiKey, sourceId, documents[0].id);
		await waitForDocument(platform, workspace.apiKey, sourceId, documents[1].id);
		await waitForDocument(platform, workspace.apiKey, other, documents[2].id);
		expect(pinecone.vectorsIn(sourceId).size).toBe(2);
		const directory = join(platform.dataDirectory, "objects", "workspaces", workspace.workspaceId, "sources", sourceId);
		expect(existsSync(directory)).toBe(true);

		const response = await platform.request("DELETE", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey });
		expect(response.status).toBe(200);
		expect(pinecone.namespaces.has(sourceId)).toBe(false);
		expect(pinecone.requests.at(-1)?.body).toEqual({ deleteAll: true, namespace: sourceId });
		for (const table of ["knowledge_chunks", "knowledge_documents"]) {
			expect(await query(`select id from ${table} where source_id = ?`, [sourceId])).toEqual([]);
		}
		expect(await query("select id from knowledge_sources where id = ?", [sourceId])).toEqual([]);
		expect(existsSync(directory)).toBe(false);
		// The neighbouring source's namespace is untouched.
		expect(pinecone.vectorsIn(other).size).toBe(1);
		expect((await search(platform, workspace.apiKey, other, { query: "bronze bells", topK: 1 }))[0].documentId).toBe(documents[2].id);
	});
});
