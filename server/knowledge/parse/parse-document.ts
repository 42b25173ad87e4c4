import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import { parseCsv } from "./parse-csv";
import { parseDocx } from "./parse-docx";
import { parseHtml } from "./parse-html";
import { parseJson } from "./parse-json";
import { parseMarkdown } from "./parse-markdown";
import { parsePdf } from "./parse-pdf";
import { parsePlainText } from "./parse-plain-text";
import { DEFAULT_PARSE_LIMITS, IngestionError, type ParseLimits, type ParsedDocument, TextBudget } from "./parsed-document";

const PARSERS: Record<DocumentExtension, (bytes: Uint8Array, limits: ParseLimits) => ParsedDocument | Promise<ParsedDocument>> = {
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

/**
 * Bytes -> text blocks by extension, within `limits`; every failure is an IngestionError with a
 * reason for humans. Parsers whose output can outgrow their input count as they go; the total is
 * checked here for all.
 */
export async function parseDocument(bytes: Uint8Array, extension: DocumentExtension, limits: ParseLimits = DEFAULT_PARSE_LIMITS): Promise<ParsedDocument> {
	if (bytes.length === 0) throw new IngestionError("The file is empty");
	let parsed: ParsedDocument;
	try {
		parsed = await PARSERS[extension](bytes, limits);
	} catch (error) {
		if (error instanceof IngestionError) throw error;
		throw new IngestionError(`The .${extension} file could not be parsed (${(error as Error).message})`, { cause: error });
	}
	const budget = new TextBudget(limits.maxCharacters);
	for (const block of parsed.blocks) budget.spend(block.text.length);
	return parsed;
}
