import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import { parseCsv } from "./parse-csv";
import { parseDocx } from "./parse-docx";
import { parseHtml } from "./parse-html";
import { parseJson } from "./parse-json";
import { parseMarkdown } from "./parse-markdown";
import { parsePdf } from "./parse-pdf";
import { parsePlainText } from "./parse-plain-text";
import { IngestionError, type ParsedDocument } from "./parsed-document";

const PARSERS: Record<DocumentExtension, (bytes: Uint8Array) => ParsedDocument | Promise<ParsedDocument>> = {
	pdf: parsePdf,
	docx: parseDocx,
	html: parseHtml,
	htm: parseHtml,
	csv: parseCsv,
	json: parseJson,
	md: parseMarkdown,
	markdown: parseMarkdown,
	txt: parsePlainText,
};

/** Bytes -> text blocks by extension; every failure is an IngestionError with a reason for humans. */
export async function parseDocument(bytes: Uint8Array, extension: DocumentExtension): Promise<ParsedDocument> {
	if (bytes.length === 0) throw new IngestionError("The file is empty");
	try {
		return await PARSERS[extension](bytes);
	} catch (error) {
		if (error instanceof IngestionError) throw error;
		throw new IngestionError(`The .${extension} file could not be parsed (${(error as Error).message})`, { cause: error });
	}
}
