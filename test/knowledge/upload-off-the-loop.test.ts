import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, type DocumentBody } from "./knowledge-helpers";

const MB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Bytes that differ at every position (a file of one repeated byte would hide an offset error). */
function fileOf(size: number, seed: number): Buffer {
	const bytes = Buffer.alloc(size);
	let state = seed;
	for (let index = 0; index < size; index++) {
		state = (state * 1103515245 + 12345) >>> 0;
		bytes[index] = state >>> 24;
	}
	return bytes;
}

/** A direct upload's body, encoded before it is sent: the server runs in this process, and encoding megabytes here would be timed as its delay. */
const uploadBody = (filename: string, contentBase64: string) => Buffer.from(JSON.stringify({ filename, contentBase64 }));

describe("direct uploads, decoded on the body thread", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;

	beforeAll(async () => {
		// Nothing ingests here: only what the request stored is read back.
		platform = await startTestPlatform({ knowledge: { worker: "off" } });
		workspace = await platform.createWorkspace();
		sourceId = await createSource(platform, workspace.apiKey, "Files");
	});
	afterAll(async () => {
		await platform?.stop();
	});

	/** Sent with node:http, which writes the prepared bytes as they are (fetch copies a body twice first, on this same loop). */
	const post = (body: Buffer, headers: Record<string, string> = {}) =>
		new Promise<Response>((resolve, reject) => {
			const request = httpRequest(`${platform.url}/knowledge/sources/${sourceId}/documents/upload`, {
				method: "POST",
				headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json", "content-length": String(body.length), ...headers },
			});
			request.once("error", reject);
			request.once("response", async (response) => {
				const chunks: Buffer[] = [];
				for await (const chunk of response) chunks.push(chunk as Buffer);
				const answerHeaders = new Headers();
				for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") answerHeaders.set(name, value);
				resolve(new Response(Buffer.concat(chunks), { status: response.statusCode, headers: answerHeaders }));
			});
			request.end(body);
		});

	it("stores exactly the bytes sent, for files at once of every size up to the direct limit, in every form of base64 it takes", async () => {
		// Around Node's pooled sizes (under 4 KiB), a megabyte, and the 5 MiB limit; standard, wrapped in lines, URL-safe.
		const files = [
			{ size: 1, form: "standard" },
			{ size: 4095, form: "standard" },
			{ size: 4097, form: "url-safe" },
			{ size: MB, form: "wrapped" },
			{ size: MB + 1, form: "standard" },
			{ size: 5 * MB, form: "standard" },
		].map(({ size, form }, index) => {
			const bytes = fileOf(size, index + 1);
			const standard = bytes.toString("base64");
			const text = form === "wrapped" ? standard.replace(/(.{76})/g, "$1\n") : form === "url-safe" ? bytes.toString("base64url") : standard;
			return { bytes, body: uploadBody(`f${index}.txt`, text) };
		});
		const answers = await Promise.all(files.map(async ({ body }) => post(body)));
		for (const [index, answer] of answers.entries()) {
			expect(answer.status, `file ${index}`).toBe(201);
			const document = (await answer.json()) as DocumentBody & { id: string };
			expect(document.byteSize).toBe(files[index].bytes.length);
			const [row] = await platform.orm.em.fork().getConnection().execute("select storage_key from knowledge_documents where id = ?", [document.id]);
			expect(sha256(await platform.services.storage.get(row.storage_key)), `file ${index}`).toBe(sha256(files[index].bytes));
		}
	});

	it("refuses what it always refused, with the same answers", async () => {
		const notBase64 = await post(uploadBody("bad.txt", `${fileOf(MB, 9).toString("base64")}*`));
		expect(notBase64.status).toBe(400);
		expect(await notBase64.json()).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "contentBase64", issue: "Not valid base64" }] });
		const notJson = await post(Buffer.from(`{"filename":"a.txt","contentBase64":"${"QUJD".repeat(1000)}"`));
		expect(notJson.status).toBe(400);
		expect(await notJson.json()).toMatchObject({ code: "INVALID_REQUEST", message: "Request body is not valid JSON" });
		const notAString = await post(Buffer.from(JSON.stringify({ filename: "a.txt", contentBase64: 42 })));
		expect(notAString.status).toBe(400);
		expect(await notAString.json()).toMatchObject({ code: "VALIDATION_ERROR" });
		const unstorable = await post(Buffer.from(JSON.stringify({ filename: "a.txt", contentBase64: "QUJD\u0000" })));
		expect(unstorable.status).toBe(400);
		expect(JSON.stringify(await unstorable.json())).toContain("contentBase64");
		const list = await platform.request("GET", `/knowledge/sources/${sourceId}/documents`, { key: workspace.apiKey });
		expect(((await list.json()) as { data: { filename: string }[] }).data.map((document) => document.filename)).not.toContain("bad.txt");
	});

	it("counts the file in an Idempotency-Key's fingerprint: the same file replays, another file under the same key is refused", async () => {
		const file = uploadBody("same.txt", fileOf(2 * MB, 21).toString("base64"));
		const other = uploadBody("same.txt", fileOf(2 * MB, 22).toString("base64"));
		const first = await post(file, { "idempotency-key": "upload-once" });
		expect(first.status).toBe(201);
		const again = await post(file, { "idempotency-key": "upload-once" });
		expect(again.status).toBe(201);
		expect(again.headers.get("idempotent-replayed")).toBe("true");
		expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
		const conflict = await post(other, { "idempotency-key": "upload-once" });
		expect(conflict.status).toBe(409);
	});
});
