import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { startS3StandIn, type S3StandIn } from "../helpers/s3-stand-in";
import { createSource, type DocumentBody, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

describe("S3-compatible object storage", () => {
	let s3: S3StandIn;
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;
	/** An independent client, as an operator would inspect the bucket. */
	let inspector: S3Client;

	beforeAll(async () => {
		s3 = await startS3StandIn();
		platform = await startTestPlatform({
			knowledge: {
				storage: {
					driver: "s3",
					bucket: s3.bucket,
					region: s3.region,
					endpoint: s3.endpoint,
					accessKeyId: s3.accessKeyId,
					secretAccessKey: s3.secretAccessKey,
					forcePathStyle: true,
				},
			},
		});
		workspace = await platform.createWorkspace();
		sourceId = await createSource(platform, workspace.apiKey);
		inspector = new S3Client({
			region: s3.region,
			endpoint: s3.endpoint,
			forcePathStyle: true,
			credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
		});
	});
	afterAll(async () => {
		inspector?.destroy();
		await platform?.stop();
		await s3?.close();
	});

	const headStatus = async (key: string) =>
		inspector.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
			() => 200,
			(error: { $metadata?: { httpStatusCode?: number } }) => error.$metadata?.httpStatusCode,
		);
	const keyOf = (documentId: string, source = sourceId) => `workspaces/${workspace.workspaceId}/sources/${source}/${documentId}`;
	const complete = (documentId: string) => platform.request("POST", `/knowledge/sources/${sourceId}/documents/${documentId}/complete`, { key: workspace.apiKey });

	it("runs the presigned flow straight to the bucket, ingests, searches, and deletes the object", async () => {
		const bytes = Buffer.from("The periwinkle funicular climbs Mount Quoddle twice each dawn.\n");
		const created = await platform.request("POST", `/knowledge/sources/${sourceId}/documents`, {
			key: workspace.apiKey,
			body: { filename: "funicular.txt", contentType: "text/plain", byteSize: bytes.length },
		});
		expect(created.status).toBe(201);
		const { document, upload } = (await created.json()) as { document: DocumentBody; upload: { url: string; method: string; headers: Record<string, string> } };
		expect(upload.url.startsWith(`${s3.endpoint}/${s3.bucket}/${keyOf(document.id)}?`)).toBe(true);
		expect(new URL(upload.url).searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
		expect(upload.headers).toEqual({ "Content-Type": "text/plain", "Content-Length": String(bytes.length) });

		// Complete before the bytes: refused, and nothing is enqueued.
		const early = await complete(document.id);
		expect(early.status).toBe(400);
		expect(await early.json()).toMatchObject({ code: "INVALID_REQUEST" });
		expect((await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["PENDING"])).status).toBe("PENDING");

		// The signature binds the headers: another Content-Type or another size is refused by S3 itself.
		const wrongType = await fetch(upload.url, { method: "PUT", headers: { "Content-Type": "application/pdf" }, body: bytes });
		expect(wrongType.status).toBe(403);
		expect(await wrongType.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
		const wrongSize = await fetch(upload.url, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: Buffer.concat([bytes, bytes]) });
		expect(wrongSize.status).toBe(403);
		expect(s3.objects.has(keyOf(document.id))).toBe(false);

		// A plain fetch with exactly the descriptor's headers and no API key.
		const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });
		expect(put.status).toBe(200);
		expect(s3.objects.get(keyOf(document.id))).toMatchObject({ contentType: "text/plain", body: bytes });

		const completed = await complete(document.id);
		expect(completed.status).toBe(200);
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY", chunkCount: 1 });
		const [hit] = await search(platform, workspace.apiKey, sourceId, { query: "periwinkle funicular Quoddle", topK: 1 });
		expect(hit).toMatchObject({ documentId: document.id, filename: "funicular.txt" });
		expect(hit.text).toContain("periwinkle funicular");

		expect(await headStatus(keyOf(document.id))).toBe(200);
		const deleted = await platform.request("DELETE", `/knowledge/sources/${sourceId}/documents/${document.id}`, { key: workspace.apiKey });
		expect(deleted.status).toBe(200);
		expect(await headStatus(keyOf(document.id))).toBe(404);
	});

	it("400 on complete when the object in the bucket has another size, and the document stays PENDING", async () => {
		const created = await platform.request("POST", `/knowledge/sources/${sourceId}/documents`, {
			key: workspace.apiKey,
			body: { filename: "short.txt", contentType: "text/plain", byteSize: 40 },
		});
		const { document } = (await created.json()) as { document: DocumentBody };
		// Written behind the URL's back (another client with bucket credentials): complete must still check the size.
		s3.objects.set(keyOf(document.id), { body: Buffer.from("only twelve!"), contentType: "text/plain" });
		const response = await complete(document.id);
		expect(response.status).toBe(400);
		expect(await response.json()).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("12 bytes") });
		expect((await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["PENDING"])).status).toBe("PENDING");
	});

	it("stores direct uploads in the bucket and deletes a whole source's objects", async () => {
		const doomed = await createSource(platform, workspace.apiKey, "doomed");
		const first = await uploadDocument(platform, workspace.apiKey, doomed, "a.md", "# A\n\nAmber lanterns drift over the Kestrel canal.");
		const second = await uploadDocument(platform, workspace.apiKey, doomed, "b.txt", "Basalt owls nest in the Kestrel canal locks.");
		await waitForDocument(platform, workspace.apiKey, doomed, first.id);
		await waitForDocument(platform, workspace.apiKey, doomed, second.id);
		expect(s3.objects.get(keyOf(first.id, doomed))?.contentType).toBe("text/markdown");
		expect((await search(platform, workspace.apiKey, doomed, { query: "basalt owls", topK: 1 }))[0].documentId).toBe(second.id);

		const response = await platform.request("DELETE", `/knowledge/sources/${doomed}`, { key: workspace.apiKey });
		expect(response.status).toBe(200);
		expect([...s3.objects.keys()].filter((key) => key.includes(doomed))).toEqual([]);
		expect(await headStatus(keyOf(first.id, doomed))).toBe(404);
		// Every call the driver made was signed correctly.
		expect(s3.requests.filter((request) => request.error === "SignatureDoesNotMatch" && !request.path.includes("X-Amz-Signature"))).toEqual([]);
	});

	it("serves no PUT /uploads/:token when the bucket takes the uploads", async () => {
		const response = await fetch(`${platform.url}/uploads/anything`, { method: "PUT", body: "x" });
		expect(response.status).toBe(404);
	});
});
