import { getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { IngestionError, type ParseLimits, type ParsedDocument, type TextBlock, TextBudget, paragraphs } from "./parsed-document";

/** Loads pdf.js (over a second the first time): a parser process does it before its first document, not during it. */
export async function preparePdfReader(): Promise<void> {
	await getResolvedPDFJS();
}

/**
 * .pdf through unpdf (pdf.js): text per page, so every chunk knows its page. No OCR. Pages are
 * read one at a time and their text counted against the budget as it comes; what pdf.js inflates
 * (Flate streams) is bounded by the parser process's memory cap and wall-clock budget.
 */
export async function parsePdf(bytes: Uint8Array, limits: ParseLimits): Promise<ParsedDocument> {
	const budget = new TextBudget(limits.maxCharacters);
	const pages: string[] = [];
	let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
	try {
		// pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
		pdf = await getDocumentProxy(new Uint8Array(bytes));
		for (let number = 1; number <= pdf.numPages; number++) {
			const page = await pdf.getPage(number);
			const content = await page.getTextContent();
			let text = "";
			for (const item of content.items) {
				if (!("str" in item)) continue;
				text += item.hasEOL ? `${item.str}\n` : item.str;
			}
			page.cleanup();
			budget.spend(text.length);
			pages.push(text);
		}
	} catch (error) {
		if (error instanceof IngestionError) throw error;
		throw new IngestionError(`The PDF could not be read; it may be corrupt or encrypted (${(error as Error).message})`, { cause: error });
	} finally {
		await pdf?.destroy().catch(() => {});
	}
	const blocks: TextBlock[] = [];
	pages.forEach((text, index) => blocks.push(...paragraphs(text.replace(/\u0000/g, ""), { page: index + 1 })));
	if (blocks.length === 0 && pages.length > 0) {
		throw new IngestionError("The PDF has no extractable text (scanned pages need OCR, which is not supported)");
	}
	return { blocks };
}
