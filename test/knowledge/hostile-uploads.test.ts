import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepOrphanedDocuments } from "../../server/modules/knowledge/document-lifecycle";
import { DEFAULT_PARSING_OPTIONS, type ParsingOptions } from "../../server/knowledge/parse/parser-pool";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { docx, docxBomb, pdf, pdfText, wordParagraphs } from "./hostile-files";
import { createSource, type DocumentBody, eventually, pollHealth, uploadDocument, waitForDocument } from "./knowledge-helpers";

const MB = 1024 ** 2;

describe("hostile uploads while another client polls /healthz", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	const parsing: ParsingOptions = { ...DEFAULT_PARSING_OPTIONS, processes: 2, memoryMegabytes: 384, timeoutSeconds: 20, retries: 1 };

	beforeAll(async () => {
		platform = await startTestPlatform({ knowledge: { parsing, workerConcurrency: 2 } });
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("stays up and answers within a second; every document ends READY or FAILED with a reason", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "Hostile");
		const intro = "<p>The harbour opens at dawn.</p>";
		const files: { filename: string; content: Buffer; expect?: RegExp }[] = [
			{ filename: "bomb.docx", content: docxBomb(250 * MB), expect: /^The DOCX expands to more than 200 MB of XML$/ },
			{ filename: "lying-bomb.docx", content: docxBomb(250 * MB, 4096), expect: /^The DOCX expands to more than 200 MB of XML$/ },
			{ filename: "small-bomb.docx", content: docxBomb(12 * MB) },
			{ filename: "comments.html", content: Buffer.from(intro + "<!--".repeat(60_000)) },
			{ filename: "script.html", content: Buffer.from(intro + "<script".repeat(40_000)) },
			{ filename: "anchors.html", content: Buffer.from(intro + "<a ".repeat(80_000)) },
			{ filename: "hashes.md", content: Buffer.from(`# ${"#".repeat(50_000)}\n\nBody text.`) },
			{ filename: "words.txt", content: Buffer.from("ab cd ".repeat(MB / 6)) },
			{ filename: "one-line.csv", content: Buffer.from("abcdefghi,".repeat((4 * MB) / 10)) },
			{ filename: "flate.pdf", content: pdf(`${pdfText(["A page over a huge stream."])}${" ".repeat(300 * MB)}`) },
			{ filename: "fine.docx", content: docx(wordParagraphs(["A plain document.", "It parses."])) },
		];
		for (const file of files) expect(file.content.length, file.filename).toBeLessThan(5 * MB);

		const health = pollHealth(platform);
		const documents: { filename: string; document: DocumentBody; expect?: RegExp }[] = [];
		for (const file of files) documents.push({ ...file, document: await uploadDocument(platform, workspace.apiKey, sourceId, file.filename, file.content) });
		const outcomes: Record<string, DocumentBody> = {};
		for (const { filename, document } of documents) {
			outcomes[filename] = await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["READY", "FAILED"], 120_000);
		}
		const { slowestMs, answers, failures } = await health.stop();

		const summary = Object.fromEntries(Object.entries(outcomes).map(([filename, body]) => [filename, `${body.status} ${body.failureReason ?? body.chunkCount}`]));
		for (const { filename, expect: reason } of documents) {
			const outcome = outcomes[filename];
			if (reason) expect(outcome.failureReason, JSON.stringify(summary)).toMatch(reason);
			if (outcome.status === "FAILED") {
				// A reason a person can read, never the catch-all.
				expect(outcome.failureReason, filename).toMatch(/DOCX expands|longer than|more than \d+ MB of memory|characters|chunks|No text/);
			}
		}
		for (const filename of ["comments.html", "script.html", "anchors.html", "hashes.md", "words.txt", "one-line.csv", "fine.docx"]) {
			expect(outcomes[filename].status, JSON.stringify(summary)).toBe("READY");
		}
		expect(failures).toBe(0);
		expect(answers).toBeGreaterThan(10);
		expect(slowestMs, JSON.stringify(summary)).toBeLessThan(1000);
	}, 300_000);

	it("checks base64 of growing size in the forms that take the character-by-character path (lines of 76, a bad character last) without holding /healthz", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "Base64");
		// Made before polling starts: the server runs in this process, and wrapping megabytes here would hold the loop /healthz is timed on.
		const uploads = [0.5, 1, 2, 4].map((mebibytes) => ({ mebibytes, wrapped: Buffer.alloc(mebibytes * MB, 101).toString("base64").replace(/(.{76})/g, "$1\n") }));
		const health = pollHealth(platform);
		for (const { mebibytes, wrapped } of uploads) {
			for (const [contentBase64, status] of [
				[wrapped, 201],
				[`${wrapped}*`, 400],
			] as const) {
				const response = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, { key: workspace.apiKey, body: { filename: "e.txt", contentBase64 } });
				expect(response.status, `${mebibytes} MiB`).toBe(status);
				if (status === 201) expect(((await response.json()) as DocumentBody).byteSize).toBe(mebibytes * MB);
				else await response.body?.cancel();
			}
		}
		const { slowestMs, answers, failures } = await health.stop();
		expect(failures).toBe(0);
		expect(answers).toBeGreaterThan(5);
		expect(slowestMs).toBeLessThan(1000);
	}, 120_000);
});

describe("a parser killed mid-document", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		platform = await startTestPlatform({ knowledge: { parsing: { ...DEFAULT_PARSING_OPTIONS, processes: 1, retries: 2, timeoutSeconds: 60 } } });
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("is retried at most KNOWLEDGE_PARSE_RETRIES times, then FAILED with the reason; the API keeps serving", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "Poison");
		// Long enough to parse (mammoth, many paragraphs) that it is caught mid-document.
		const content = docx(wordParagraphs(Array.from({ length: 30_000 }, (_, index) => `Paragraph ${index} of a long document.`)));
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "poison.docx", content);
		const killed: number[] = [];
		for (let kill = 0; kill < 3; kill++) {
			const pid = await eventually(async () => platform.services.parsers.busyProcessIds().find((candidate) => !killed.includes(candidate)), 60_000, "a parser busy with the document");
			process.kill(pid, "SIGKILL");
			killed.push(pid);
			const health = await fetch(`${platform.url}/healthz`);
			expect(health.status).toBe(200);
		}
		const failed = await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["FAILED", "READY"], 60_000);
		expect(failed.status).toBe("FAILED");
		expect(failed.failureReason).toBe("The parser stopped while reading the document (signal SIGKILL); tried 3 times");
		const [row] = await platform.orm.em.fork().getConnection().execute("select attempts, unfinished_parses from knowledge_documents where id = ?", [document.id]);
		expect(row).toEqual({ attempts: 3, unfinished_parses: 3 });

		// Asked for again by a person: parsed afresh, and this time nobody kills it.
		const retried = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/retry`, { key: workspace.apiKey });
		expect(retried.status).toBe(200);
		const ready = await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["FAILED", "READY"], 120_000);
		expect(ready.status).toBe("READY");
	}, 300_000);

	it("is failed by the sweeper, not re-queued, when its parses took the whole process down too often", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "Crashed");
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "crashed.txt", "Some text.");
		await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["READY"]);
		// What three process crashes mid-parse leave behind: PROCESSING long ago, three parses counted.
		const connection = platform.orm.em.fork().getConnection();
		await connection.execute(
			"update knowledge_documents set status = 'PROCESSING', unfinished_parses = 3, processing_started_at = now() - interval '1 hour' where id = ?",
			[document.id],
		);
		await sweepOrphanedDocuments(platform.orm, platform.services);
		const [row] = await connection.execute("select status, failure_reason, attempts from knowledge_documents where id = ?", [document.id]);
		expect(row.status).toBe("FAILED");
		expect(row.failure_reason).toBe("Parsing this document stopped its ingestion process 3 times; it is not tried again until you retry it");
		expect(row.attempts).toBe(1);
	}, 60_000);
});
