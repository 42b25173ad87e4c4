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

/**
 * Splits plain text into paragraph blocks at blank lines (lines of whitespace only), trailing
 * whitespace of each line dropped. Line by line: a regular expression with a whitespace run before
 * a newline backtracks over long runs of spaces (quadratic time).
 */
export function paragraphs(text: string, extra: Omit<TextBlock, "text"> = {}): TextBlock[] {
	const blocks: TextBlock[] = [];
	let lines: string[] = [];
	const flush = () => {
		const paragraph = lines.join("\n").trim();
		if (paragraph) blocks.push({ text: paragraph, ...extra });
		lines = [];
	};
	for (const line of text.split("\n")) {
		const trimmed = line.trimEnd();
		if (trimmed === "") flush();
		else lines.push(trimmed);
	}
	flush();
	return blocks;
}

/** What one document may produce (KNOWLEDGE_PARSE_*, docs/knowledge.md); past a budget it fails with the reason. */
export interface ParseLimits {
	/** Bytes a compressed container (the XML parts of a DOCX) may inflate to. */
	maxExpandedBytes: number;
	/** Characters of extracted text. */
	maxCharacters: number;
	/** Chunks per document. */
	maxChunks: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxExpandedBytes: 200 * 1024 ** 2, maxCharacters: 50_000_000, maxChunks: 50_000 };

/** 209715200 -> "200 MB" (MiB, as people read file sizes); 50000000 -> "50,000,000". */
export function formatBytes(bytes: number): string {
	return bytes >= 1024 ** 2 ? `${Math.round((bytes / 1024 ** 2) * 10) / 10} MB` : `${Math.round((bytes / 1024) * 10) / 10} KB`;
}

export function formatCount(count: number): string {
	return count.toLocaleString("en-US");
}

/**
 * Counts extracted characters as a parser produces them, so a document whose text grows past the
 * budget (a CSV header repeated in every row group, JSON paths repeated on every line) stops
 * early instead of first filling memory.
 */
export class TextBudget {
	private used = 0;

	constructor(private readonly limit: number) {}

	spend(characters: number): void {
		this.used += characters;
		if (this.used > this.limit) throw new IngestionError(`The document's text is longer than ${formatCount(this.limit)} characters`);
	}
}

/** Heading titles kept in a chunk's location: every chunk of the section repeats them. */
const MAX_HEADING_TITLE = 200;

export function headingTitle(text: string): string {
	return text.length <= MAX_HEADING_TITLE ? text : `${text.slice(0, MAX_HEADING_TITLE - 1).trimEnd()}…`;
}
