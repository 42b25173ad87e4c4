/** One piece of a document's text and where it stands; the chunker packs these into chunks. */
export interface TextBlock {
	text: string;
	page?: number;
	headingPath?: string[];
	rowRange?: { from: number; to: number };
	/** Never merged with neighbours (a CSV row group carries its own header). */
	standalone?: boolean;
}

export interface ParsedDocument {
	blocks: TextBlock[];
}

/** An ingestion failure the document's owner can act on; its message becomes failureReason. */
export class IngestionError extends Error {
	constructor(message: string, options: { cause?: unknown } = {}) {
		super(message, options);
		this.name = "IngestionError";
	}
}

/** Splits plain text into paragraph blocks at blank lines. */
export function paragraphs(text: string, extra: Omit<TextBlock, "text"> = {}): TextBlock[] {
	return text
		.split(/\n\s*\n/)
		.map((paragraph) => paragraph.replace(/[ \t]+\n/g, "\n").trim())
		.filter((paragraph) => paragraph.length > 0)
		.map((paragraph) => ({ text: paragraph, ...extra }));
}
