import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DIRECT_UPLOAD_BYTES } from "../../contract/schemas/knowledge";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, type DocumentBody, searchPath, uploadDocument, waitForDocument } from "./knowledge-helpers";

describe("knowledge document endpoints", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let other: TestWorkspace;
	let sourceId: string;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		other = await platform.createWorkspace();
		sourceId = await createSource(platform, workspace.apiKey);
	});
	afterAll(async () => {
		await platform?.stop();
	});

	const upload = (body: Record<string, unknown>, key = workspace.apiKey, source = sourceId) =>
		platform.request("POST", `/knowledge/sources/${source}/documents/upload`, { key, body });
	const documentCount = async () => {
		const response = await platform.request("GET", `/knowledge/sources/${sourceId}/documents?limit=100`, { key: workspace.apiKey });
		return ((await response.json()) as { data: unknown[] }).data.length;
	};
	const presign = (body: Record<string, unknown>, key = workspace.apiKey, source = sourceId) =>
		platform.request("POST", `/knowledge/sources/${source}/documents`, { key, body });

	describe("direct upload", () => {
		it("creates a PENDING document, derives the content type, and ingests it", async () => {
			const response = await upload({ filename: "notes.md", contentBase64: Buffer.from("# Notes\n\nHello there.").toString("base64") });
			expect(response.status).toBe(201);
			const document = (await response.json()) as DocumentBody;
			expect(document).toMatchObject({ status: "PENDING", filename: "notes.md", contentType: "text/markdown", byteSize: Buffer.byteLength("# Notes\n\nHello there."), failureReason: null, chunkCount: 0, sourceId });
			expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY", chunkCount: 1 });
		});

		it("accepts base64 as clients write it: standard, URL-safe, unpadded, in lines of 76, each decoding to the file's size", async () => {
			const bytes = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 37 + (index >> 3)) % 256));
			const standard = bytes.toString("base64");
			const forms = [standard, bytes.toString("base64url"), standard.replace(/=+$/, ""), standard.replace(/(.{76})/g, "$1\r\n")];
			for (const contentBase64 of forms) {
				const response = await upload({ filename: "a.txt", contentBase64 });
				expect(response.status).toBe(201);
				expect(((await response.json()) as DocumentBody).byteSize).toBe(bytes.length);
			}
		});

		it("accepts a content type with parameters when it matches the extension", async () => {
			const response = await upload({ filename: "a.txt", contentBase64: "aGk=", contentType: "text/plain; charset=utf-8" });
			expect(response.status).toBe(201);
			expect(((await response.json()) as DocumentBody).contentType).toBe("text/plain");
		});

		it.each([
			["unsupported extension", { filename: "virus.exe", contentBase64: "aGk=" }, "filename"],
			["no extension", { filename: "README", contentBase64: "aGk=" }, "filename"],
			["content type not matching the extension", { filename: "a.pdf", contentBase64: "aGk=", contentType: "text/plain" }, "contentType"],
			["base64 that does not decode", { filename: "a.txt", contentBase64: "@@not base64@@" }, "contentBase64"],
			["base64 with broken padding", { filename: "a.txt", contentBase64: "aGk==" }, "contentBase64"],
			["base64 with data after its padding", { filename: "a.txt", contentBase64: "aGk=aGk=" }, "contentBase64"],
			["base64 with a character of neither alphabet inside", { filename: "a.txt", contentBase64: "aGVs*bG8=" }, "contentBase64"],
			["base64 one character short of a byte", { filename: "a.txt", contentBase64: "aGVsbG8gd" }, "contentBase64"],
			["path separators in the filename", { filename: "../a.txt", contentBase64: "aGk=" }, "filename"],
			["a missing field", { filename: "a.txt" }, "contentBase64"],
		])("400 VALIDATION_ERROR for %s", async (_name, body, field) => {
			const response = await upload(body);
			expect(response.status).toBe(400);
			const envelope = (await response.json()) as { code: string; status: number; fields: { field: string }[] };
			expect(envelope).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
			expect(envelope.fields.map((issue) => issue.field)).toContain(field);
		});

		it("400 VALIDATION_ERROR for a file above the direct-upload limit", async () => {
			const response = await upload({ filename: "big.txt", contentBase64: Buffer.alloc(MAX_DIRECT_UPLOAD_BYTES + 1, 97).toString("base64") });
			expect(response.status).toBe(400);
			expect(await response.json()).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "contentBase64" }] });
		});

		it("400 VALIDATION_ERROR on contentBase64 for files of 6, 10 and 24 MiB, pointing at the presigned flow; 413 only past a 25 MiB file; nothing stored", async () => {
			const documentsBefore = await documentCount();
			for (const mebibytes of [6, 10, 24]) {
				const response = await upload({ filename: "big.txt", contentBase64: Buffer.alloc(mebibytes * 1024 * 1024, 97).toString("base64") });
				expect(response.status, `${mebibytes} MiB`).toBe(400);
				const envelope = (await response.json()) as { code: string; fields: { field: string; issue: string }[] };
				expect(envelope.code).toBe("VALIDATION_ERROR");
				expect(envelope.fields).toEqual([{ field: "contentBase64", issue: expect.stringContaining("presigned flow") }]);
			}
			const beyond = await upload({ filename: "big.txt", contentBase64: Buffer.alloc(26 * 1024 * 1024, 97).toString("base64") });
			expect(beyond.status).toBe(413);
			expect(await beyond.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
			expect(await documentCount()).toBe(documentsBefore);
		});

		it("400 VALIDATION_ERROR on contentBase64 for a chunked body that grows past a direct upload's size", async () => {
			// A stream body has no Content-Length: fetch sends it chunked.
			const piece = new TextEncoder().encode("Q".repeat(256 * 1024));
			let sent = 0;
			const body = new ReadableStream<Uint8Array>({
				start: (controller) => controller.enqueue(new TextEncoder().encode('{"filename":"big.txt","contentBase64":"')),
				pull: (controller) => {
					if (sent >= 12 * 1024 * 1024) {
						controller.enqueue(new TextEncoder().encode('"}'));
						return controller.close();
					}
					sent += piece.length;
					controller.enqueue(piece);
				},
			});
			const response = await fetch(`${platform.url}/knowledge/sources/${sourceId}/documents/upload`, {
				method: "POST",
				headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
				body,
				duplex: "half",
			} as RequestInit);
			const answer = { status: response.status, body: await response.text() };
			expect(answer.status).toBe(400);
			expect(JSON.parse(answer.body)).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "contentBase64" }] });
		});

		it("400 VALIDATION_ERROR on the size field past the workspace allowance, direct or presigned, and nothing is stored", async () => {
			const small = await platform.createWorkspace();
			await platform.orm.em.fork().getConnection().execute("update workspaces set storage_allowance_bytes = 10 where id = ?", [small.workspaceId]);
			const smallSource = await createSource(platform, small.apiKey);
			const fits = await upload({ filename: "a.txt", contentBase64: Buffer.from("12345678").toString("base64") }, small.apiKey, smallSource);
			expect(fits.status).toBe(201);
			const over = await upload({ filename: "b.txt", contentBase64: Buffer.from("123").toString("base64") }, small.apiKey, smallSource);
			expect(over.status).toBe(400);
			expect(await over.json()).toMatchObject({
				code: "VALIDATION_ERROR",
				status: 400,
				fields: [{ field: "contentBase64", issue: "3 bytes would exceed the workspace's knowledge storage allowance (8 of 10 bytes used)" }],
			});
			const presigned = await presign({ filename: "c.txt", contentType: "text/plain", byteSize: 3 }, small.apiKey, smallSource);
			expect(presigned.status).toBe(400);
			expect(await presigned.json()).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "byteSize" }] });
			const list = await platform.request("GET", `/knowledge/sources/${smallSource}/documents`, { key: small.apiKey });
			expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
		});
	});

	describe("presigned upload", () => {
		const bytes = Buffer.from("Presigned uploads carry the bytes of the zephyr accordion manual.\n");

		async function start(overrides: Record<string, unknown> = {}) {
			const response = await presign({ filename: "manual.txt", contentType: "text/plain", byteSize: bytes.length, ...overrides });
			expect(response.status).toBe(201);
			return (await response.json()) as { document: DocumentBody; upload: { url: string; method: string; headers: Record<string, string>; expiresAt: string } };
		}

		it("runs the three steps with a plain fetch carrying no API key", async () => {
			const { document, upload: target } = await start();
			expect(document.status).toBe("PENDING");
			expect(target.method).toBe("PUT");
			expect(target.headers).toEqual({ "Content-Type": "text/plain", "Content-Length": String(bytes.length) });
			expect(new Date(target.expiresAt).getTime()).toBeGreaterThan(Date.now());
			expect(target.url.startsWith("http://localhost:")).toBe(true);

			const early = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`, { key: workspace.apiKey });
			expect(early.status).toBe(400);
			expect(await early.json()).toMatchObject({ code: "INVALID_REQUEST" });
			expect((await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["PENDING"])).status).toBe("PENDING");

			const put = await fetch(target.url.replace("localhost", "127.0.0.1"), { method: "PUT", headers: target.headers, body: bytes });
			expect(put.status).toBe(200);
			const again = await fetch(target.url.replace("localhost", "127.0.0.1"), { method: "PUT", headers: target.headers, body: bytes });
			expect(again.status).toBe(400);
			expect(await again.json()).toMatchObject({ code: "INVALID_REQUEST", status: 400, message: "The bytes for this upload URL were already uploaded" });

			const complete = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`, { key: workspace.apiKey });
			expect(complete.status).toBe(200);
			expect(await complete.json()).toMatchObject({ id: document.id, status: "PENDING" });
			const second = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`, { key: workspace.apiKey });
			expect(second.status).toBe(400);
			expect(await second.json()).toMatchObject({ code: "INVALID_REQUEST", message: "This document's upload is already complete" });
			expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY" });
		});

		it("refuses a PUT with another content type, another size, or a tampered token", async () => {
			const { upload: target } = await start();
			const url = target.url.replace("localhost", "127.0.0.1");
			const wrongType = await fetch(url, { method: "PUT", headers: { "Content-Type": "application/pdf" }, body: bytes });
			expect(wrongType.status).toBe(400);
			expect(await wrongType.json()).toMatchObject({ code: "INVALID_REQUEST" });
			const wrongSize = await fetch(url, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: Buffer.concat([bytes, bytes]) });
			expect(wrongSize.status).toBe(400);
			const tampered = await fetch(`${url.slice(0, -3)}abc`, { method: "PUT", headers: target.headers, body: bytes });
			expect(tampered.status).toBe(403);
			expect(await tampered.json()).toMatchObject({ code: "FORBIDDEN" });
			// The refused attempts stored nothing: the real upload still goes through.
			expect((await fetch(url, { method: "PUT", headers: target.headers, body: bytes })).status).toBe(200);
		});

		it("refuses an expired URL", async () => {
			const expiring = await startTestPlatform({ knowledge: { uploadUrlTtlSeconds: 1 } });
			try {
				const owner = await expiring.createWorkspace();
				const source = await createSource(expiring, owner.apiKey);
				const response = await expiring.request("POST", `/knowledge/sources/${source}/documents`, {
					key: owner.apiKey,
					body: { filename: "late.txt", contentType: "text/plain", byteSize: 3 },
				});
				const { upload: target } = (await response.json()) as { upload: { url: string; headers: Record<string, string>; expiresAt: string } };
				// Wait (by deadline, not a guess) until the URL's own expiry has passed.
				while (Date.now() <= new Date(target.expiresAt).getTime()) await new Promise((resolve) => setTimeout(resolve, 50));
				const put = await fetch(target.url.replace("localhost", "127.0.0.1"), { method: "PUT", headers: target.headers, body: "abc" });
				expect(put.status).toBe(403);
				expect(await put.json()).toMatchObject({ code: "FORBIDDEN" });
			} finally {
				await expiring.stop();
			}
		});

		it.each([
			["content type not matching the extension", { contentType: "application/pdf" }, "contentType"],
			["unsupported extension", { filename: "a.exe" }, "filename"],
			["byteSize above 25 MiB", { byteSize: 25 * 1024 * 1024 + 1 }, "byteSize"],
			["missing contentType", { contentType: undefined }, "contentType"],
		])("400 VALIDATION_ERROR for %s", async (_name, overrides, field) => {
			const response = await presign({ filename: "manual.txt", contentType: "text/plain", byteSize: 10, ...overrides });
			expect(response.status).toBe(400);
			const envelope = (await response.json()) as { code: string; fields: { field: string }[] };
			expect(envelope.code).toBe("VALIDATION_ERROR");
			expect(envelope.fields.map((issue) => issue.field)).toContain(field);
		});
	});

	describe("retry", () => {
		it("re-runs a FAILED document and refuses any other state with 400 INVALID_REQUEST", async () => {
			const empty = await uploadDocument(platform, workspace.apiKey, sourceId, "empty.txt", "");
			const failed = await waitForDocument(platform, workspace.apiKey, sourceId, empty.id);
			expect(failed).toMatchObject({ status: "FAILED", failureReason: "The file is empty", chunkCount: 0 });
			const retried = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${empty.id}/retry`, { key: workspace.apiKey });
			expect(retried.status).toBe(200);
			expect(await retried.json()).toMatchObject({ status: "PENDING", failureReason: null });
			expect(await waitForDocument(platform, workspace.apiKey, sourceId, empty.id)).toMatchObject({ status: "FAILED" });

			const ready = await uploadDocument(platform, workspace.apiKey, sourceId, "ok.txt", "fine");
			await waitForDocument(platform, workspace.apiKey, sourceId, ready.id);
			const refused = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${ready.id}/retry`, { key: workspace.apiKey });
			expect(refused.status).toBe(400);
			expect(await refused.json()).toMatchObject({ code: "INVALID_REQUEST", status: 400, message: "Only a FAILED document can be retried; this one is READY" });
		});

		it("fails a corrupt PDF with a reason, never a crash", async () => {
			const corrupt = await uploadDocument(platform, workspace.apiKey, sourceId, "corrupt.pdf", Buffer.from("%PDF-1.7\n1 0 obj <<< garbage\n%%EOF"));
			const failed = await waitForDocument(platform, workspace.apiKey, sourceId, corrupt.id);
			expect(failed.status).toBe("FAILED");
			expect(failed.failureReason).toMatch(/PDF could not be read/);
			const corruptDocx = await uploadDocument(platform, workspace.apiKey, sourceId, "corrupt.docx", Buffer.from("PK\u0003\u0004 not really a zip"));
			expect((await waitForDocument(platform, workspace.apiKey, sourceId, corruptDocx.id)).failureReason).toMatch(/DOCX file could not be read/);
		});
	});

	describe("get, list, delete", () => {
		it("pages through documents with a cursor, newest first", async () => {
			const source = await createSource(platform, workspace.apiKey, "paging");
			const created: string[] = [];
			for (let index = 0; index < 3; index++) created.push((await uploadDocument(platform, workspace.apiKey, source, `p${index}.txt`, `page ${index}`)).id);
			const first = await platform.request("GET", `/knowledge/sources/${source}/documents?limit=2`, { key: workspace.apiKey });
			const page1 = (await first.json()) as { data: DocumentBody[]; hasMore: boolean; nextCursor: string };
			expect(page1.data.map((document) => document.id)).toEqual([created[2], created[1]]);
			expect(page1.hasMore).toBe(true);
			const second = await platform.request("GET", `/knowledge/sources/${source}/documents?limit=2&cursor=${page1.nextCursor}`, { key: workspace.apiKey });
			const page2 = (await second.json()) as { data: DocumentBody[]; hasMore: boolean };
			expect(page2.data.map((document) => document.id)).toEqual([created[0]]);
			expect(page2.hasMore).toBe(false);
		});

		it("deletes a document with its bytes and chunks", async () => {
			const document = await uploadDocument(platform, workspace.apiKey, sourceId, "gone.txt", "Ephemeral walrus sonnets.");
			await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
			const response = await platform.request("DELETE", `/knowledge/sources/${sourceId}/documents/${document.id}`, { key: workspace.apiKey });
			expect(response.status).toBe(200);
			expect(await response.json()).toEqual({ id: document.id, deleted: true });
			const after = await platform.request("GET", `/knowledge/sources/${sourceId}/documents/${document.id}`, { key: workspace.apiKey });
			expect(after.status).toBe(404);
			const [{ count }] = await platform.orm.em.fork().getConnection().execute("select count(*)::int as count from knowledge_chunks where document_id = ?", [document.id]);
			expect(count).toBe(0);
		});
	});

	describe("search", () => {
		it("is a GET whose query parameters are validated, every offender named, and a POST is no route", async () => {
			const get = async (path: string) => {
				const response = await platform.request("GET", path, { key: workspace.apiKey });
				return { status: response.status, body: await response.json() };
			};
			const ok = await get(searchPath(sourceId, { query: "nothing matches this", topK: 2, minScore: 0.5 }));
			expect(ok).toEqual({ status: 200, body: { data: [] } });
			const bad = await get(`/knowledge/sources/${sourceId}/search?topK=0&minScore=2&limit=3`);
			expect(bad.status).toBe(400);
			expect(bad.body.code).toBe("VALIDATION_ERROR");
			expect(bad.body.fields.map((field: { field: string }) => field.field).sort()).toEqual(["limit", "minScore", "query", "topK"]);
			const notNumber = await get(`/knowledge/sources/${sourceId}/search?query=x&topK=three`);
			expect(notNumber.body.fields).toEqual([{ field: "topK", issue: "Expected number, received nan" }]);
			const blank = await get(`/knowledge/sources/${sourceId}/search?query=%20%20`);
			expect(blank.body.fields.map((field: { field: string }) => field.field)).toEqual(["query"]);
			const post = await platform.request("POST", `/knowledge/sources/${sourceId}/search`, { key: workspace.apiKey, body: { query: "x" } });
			expect(post.status).toBe(404);
			expect(await post.json()).toMatchObject({ code: "NOT_FOUND" });
		});
	});

	describe("authorization", () => {
		it("403 FORBIDDEN without the scope the route needs", async () => {
			const readOnly = await workspace.createKey(["knowledge:read"]);
			const writeOnly = await workspace.createKey(["knowledge:write"]);
			const runtimeOnly = await workspace.createKey(["runtime:execute"]);
			const document = await uploadDocument(platform, workspace.apiKey, sourceId, "scoped.txt", "scoped");
			const writes: [string, string, unknown?][] = [
				["POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename: "a.txt", contentBase64: "aGk=" }],
				["POST", `/knowledge/sources/${sourceId}/documents`, { filename: "a.txt", contentType: "text/plain", byteSize: 2 }],
				["POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`],
				["POST", `/knowledge/sources/${sourceId}/documents/${document.id}/retry`],
				["DELETE", `/knowledge/sources/${sourceId}/documents/${document.id}`],
			];
			const reads: [string, string, unknown?][] = [
				["GET", `/knowledge/sources/${sourceId}/documents`],
				["GET", `/knowledge/sources/${sourceId}/documents/${document.id}`],
				["GET", searchPath(sourceId, { query: "scoped" })],
			];
			for (const [method, path, body] of writes) {
				for (const key of [readOnly.key, runtimeOnly.key]) {
					const response = await platform.request(method, path, { key, body });
					expect(response.status, `${method} ${path}`).toBe(403);
					expect(await response.json()).toMatchObject({ code: "FORBIDDEN" });
				}
			}
			for (const [method, path, body] of reads) {
				for (const key of [writeOnly.key, runtimeOnly.key]) {
					const response = await platform.request(method, path, { key, body });
					expect(response.status, `${method} ${path}`).toBe(403);
				}
			}
		});

		it("404 NOT_FOUND for another workspace's source or document, on every route", async () => {
			const document = await uploadDocument(platform, workspace.apiKey, sourceId, "private.txt", "private");
			const otherSource = await createSource(platform, other.apiKey, "theirs");
			const routes: [string, string, unknown?][] = [
				["GET", `/knowledge/sources/${sourceId}`],
				["DELETE", `/knowledge/sources/${sourceId}`],
				["GET", `/knowledge/sources/${sourceId}/documents`],
				["GET", `/knowledge/sources/${sourceId}/documents/${document.id}`],
				["POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename: "a.txt", contentBase64: "aGk=" }],
				["POST", `/knowledge/sources/${sourceId}/documents`, { filename: "a.txt", contentType: "text/plain", byteSize: 2 }],
				["POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`],
				["POST", `/knowledge/sources/${sourceId}/documents/${document.id}/retry`],
				["DELETE", `/knowledge/sources/${sourceId}/documents/${document.id}`],
				["GET", searchPath(sourceId, { query: "private" })],
				// Their own source, but our document id: still not found.
				["GET", `/knowledge/sources/${otherSource}/documents/${document.id}`],
				["POST", `/knowledge/sources/${otherSource}/documents/${document.id}/retry`],
				["DELETE", `/knowledge/sources/${otherSource}/documents/${document.id}`],
			];
			for (const [method, path, body] of routes) {
				const response = await platform.request(method, path, { key: other.apiKey, body });
				expect(response.status, `${method} ${path}`).toBe(404);
				expect(await response.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
			}
			// Nothing happened to the owner's data.
			expect((await platform.request("GET", `/knowledge/sources/${sourceId}/documents/${document.id}`, { key: workspace.apiKey })).status).toBe(200);
		});
	});
});
