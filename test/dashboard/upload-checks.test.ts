import { describe, expect, it } from "vitest";
import { checkFile } from "../../web/src/features/knowledge/upload-checks";

/** What the upload page refuses before sending a byte: the knowledge API's own types and size limit. */
describe("the dashboard's upload checks", () => {
	it("refuses unsupported types, empty files and files over 25 MB, in words", () => {
		expect(checkFile({ name: "setup.exe", size: 10, type: "application/x-msdownload" })).toEqual({
			refusal: ".exe files are not accepted; accepted: .pdf, .txt, .md, .markdown, .html, .htm, .csv, .json, .docx.",
		});
		expect(checkFile({ name: "README", size: 10, type: "" })).toMatchObject({ refusal: expect.stringContaining("Files without an extension are not accepted") });
		expect(checkFile({ name: "empty.md", size: 0, type: "text/markdown" })).toEqual({ refusal: "The file is empty." });
		expect(checkFile({ name: "huge.pdf", size: 25 * 1024 * 1024 + 1, type: "application/pdf" })).toEqual({ refusal: "The file is over the 25 MB limit per file (it is 25.0 MB)." });
	});

	it("sends the extension's own type when the browser gives none or another", () => {
		expect(checkFile({ name: "notes.MD", size: 10, type: "" })).toEqual({ contentType: "text/markdown" });
		expect(checkFile({ name: "notes.md", size: 10, type: "text/plain" })).toEqual({ contentType: "text/plain" });
		expect(checkFile({ name: "paper.pdf", size: 25 * 1024 * 1024, type: "application/octet-stream" })).toEqual({ contentType: "application/pdf" });
	});
});
