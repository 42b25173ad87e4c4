import mammoth from "mammoth";
import { parseHtmlText } from "./parse-html";
import { IngestionError, type ParseLimits, type ParsedDocument, formatBytes } from "./parsed-document";
import { inflateEntry, readCentralDirectory, writeStoredZip } from "./read-zip";

/** Parts a Word document is made of; many more is an archive built to exhaust a reader. */
const MAX_PARTS = 10_000;

/** The parts mammoth reads (document, styles, numbering, notes, relationships); media are never read. */
function isTextPart(name: string): boolean {
	const lower = name.toLowerCase();
	return lower.endsWith(".xml") || lower.endsWith(".rels");
}

/**
 * .docx through mammoth, which maps Word heading styles to h1-h6: the heading path survives.
 * The archive is checked first: the XML parts' declared sizes against the budget before anything
 * is inflated, then their actual sizes while inflating (a member may lie about its size); mammoth
 * then reads a copy holding only those parts, stored, with nothing left for it to inflate.
 */
export async function parseDocx(bytes: Uint8Array, limits: ParseLimits): Promise<ParsedDocument> {
	const archive = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const tooLarge = () => new IngestionError(`The DOCX expands to more than ${formatBytes(limits.maxExpandedBytes)} of XML`);
	const seen = new Set<string>();
	const parts = readCentralDirectory(archive, "DOCX", MAX_PARTS).filter((entry) => {
		if (!isTextPart(entry.name) || seen.has(entry.name)) return false;
		seen.add(entry.name);
		return true;
	});
	const declared = parts.reduce((sum, entry) => sum + entry.declaredSize, 0);
	if (declared > limits.maxExpandedBytes) throw tooLarge();
	let remaining = limits.maxExpandedBytes;
	const members: { name: string; data: Buffer }[] = [];
	for (const entry of parts) {
		const data = inflateEntry(archive, entry, remaining, "DOCX");
		if (data === null) throw tooLarge();
		remaining -= data.length;
		members.push({ name: entry.name, data });
	}
	let html: string;
	try {
		const result = await mammoth.convertToHtml(
			{ buffer: writeStoredZip(members) },
			// Images are not text: never read (their parts are not even in the copy).
			{ convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
		);
		html = result.value;
	} catch (error) {
		throw new IngestionError(`The DOCX file could not be read; it may be corrupt (${(error as Error).message})`, { cause: error });
	}
	return parseHtmlText(html);
}
