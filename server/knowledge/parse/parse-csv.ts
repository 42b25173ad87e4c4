import { decodeText } from "./decode-text";
import { IngestionError, type ParseLimits, type ParsedDocument, type TextBlock, TextBudget } from "./parsed-document";

/** Rows per group, capped by size too, so a group is about one chunk. */
const MAX_ROWS_PER_GROUP = 25;
const MAX_CHARS_PER_GROUP = 1400;

/**
 * RFC 4180 records: quoted fields may hold delimiters, quotes ("") and newlines. Unquoted fields
 * are sliced from the text, never built a character at a time.
 */
export function parseDelimited(text: string, delimiter: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	const delimiterCode = delimiter.charCodeAt(0);
	let index = 0;
	const endRow = () => {
		if (row.some((value) => value.trim() !== "")) rows.push(row);
		row = [];
	};
	while (index <= text.length) {
		let field: string;
		if (text.charCodeAt(index) === 0x22) {
			// Quoted: pieces between doubled quotes, joined once.
			const pieces: string[] = [];
			let from = index + 1;
			for (;;) {
				const quote = text.indexOf('"', from);
				if (quote < 0) {
					pieces.push(text.slice(from));
					index = text.length;
					break;
				}
				pieces.push(text.slice(from, quote));
				if (text.charCodeAt(quote + 1) === 0x22) {
					pieces.push('"');
					from = quote + 2;
					continue;
				}
				index = quote + 1;
				break;
			}
			// Anything between the closing quote and the next delimiter belongs to the field, as written.
			const rest = endOfField(text, index, delimiterCode);
			pieces.push(text.slice(index, rest));
			field = pieces.join("");
			index = rest;
		} else {
			const end = endOfField(text, index, delimiterCode);
			field = text.slice(index, end);
			index = end;
		}
		row.push(field);
		if (index >= text.length) {
			endRow();
			break;
		}
		if (text.charCodeAt(index) === 0x0a) endRow();
		index++;
	}
	return rows;
}

function endOfField(text: string, from: number, delimiterCode: number): number {
	let index = from;
	while (index < text.length) {
		const code = text.charCodeAt(index);
		if (code === delimiterCode || code === 0x0a) break;
		index++;
	}
	return index;
}

/** The delimiter that splits the first line into the most fields: comma, semicolon or tab. */
function detectDelimiter(text: string): string {
	let commas = 0;
	let semicolons = 0;
	let tabs = 0;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code === 0x0a) break;
		if (code === 0x2c) commas++;
		else if (code === 0x3b) semicolons++;
		else if (code === 0x09) tabs++;
	}
	if (semicolons > commas && semicolons >= tabs) return ";";
	if (tabs > commas && tabs > semicolons) return "\t";
	return ",";
}

/**
 * .csv: the first record is the header; rows are grouped and every group repeats the header, so a
 * chunk of rows still says what its columns mean. Row numbers count data rows from 1.
 */
export function parseCsv(bytes: Uint8Array, limits: ParseLimits): ParsedDocument {
	const text = decodeText(bytes);
	const budget = new TextBudget(limits.maxCharacters);
	const records = parseDelimited(text, detectDelimiter(text));
	if (records.length === 0) throw new IngestionError("The CSV file has no rows");
	const [header, ...rows] = records;
	const headerLine = header.map((name) => name.trim()).join(", ");
	if (rows.length === 0) return { blocks: [{ text: headerLine, standalone: true }] };
	const blocks: TextBlock[] = [];
	let group: string[] = [];
	let groupStart = 1;
	let groupChars = 0;
	const flush = (lastRow: number) => {
		if (!group.length) return;
		budget.spend(headerLine.length + groupChars);
		blocks.push({ text: `${headerLine}\n${group.join("\n")}`, rowRange: { from: groupStart, to: lastRow }, standalone: true });
		group = [];
		groupChars = 0;
		groupStart = lastRow + 1;
	};
	rows.forEach((row, index) => {
		const line = row.map((value) => value.trim()).join(", ");
		if (group.length >= MAX_ROWS_PER_GROUP || (group.length > 0 && groupChars + line.length > MAX_CHARS_PER_GROUP)) flush(index);
		group.push(line);
		groupChars += line.length + 1;
	});
	flush(rows.length);
	return { blocks };
}
