import { extractText, getDocumentProxy } from "unpdf";
import { IngestionError, type ParsedDocument, type TextBlock, paragraphs } from "./parsed-document";

/** .pdf through unpdf (pdf.js): text per page, so every chunk knows its page. No OCR. */
export async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
	let pages: string[];
	try {
		// pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
		const pdf = await getDocumentProxy(new Uint8Array(bytes));
		pages = (await extractText(pdf, { mergePages: false })).text as string[];
		await pdf.destroy();
	} catch (error) {
		throw new IngestionError(`The PDF could not be read; it may be corrupt or encrypted (${(error as Error).message})`, { cause: error });
	}
	const blocks: TextBlock[] = [];
	pages.forEach((text, index) => blocks.push(...paragraphs(text.replace(/\u0000/g, ""), { page: index + 1 })));
	if (blocks.length === 0 && pages.length > 0) {
		throw new IngestionError("The PDF has no extractable text (scanned pages need OCR, which is not supported)");
	}
	return { blocks };
}
