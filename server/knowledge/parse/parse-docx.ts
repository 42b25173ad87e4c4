import mammoth from "mammoth";
import { parseHtmlText } from "./parse-html";
import { IngestionError, type ParsedDocument } from "./parsed-document";

/** .docx through mammoth, which maps Word heading styles to h1-h6: the heading path survives. */
export async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
	let html: string;
	try {
		html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
	} catch (error) {
		throw new IngestionError(`The DOCX file could not be read; it may be corrupt (${(error as Error).message})`, { cause: error });
	}
	return parseHtmlText(html);
}
