import { decodeText } from "./decode-text";
import { IngestionError, type ParsedDocument, type TextBlock } from "./parsed-document";

/** Rows per group, capped by size too, so a group is about one chunk. */
const MAX_ROWS_PER_GROUP = 25;
const MAX_CHARS_PER_GROUP = 1400;

/** RFC 4180 records: quoted fields may hold delimiters, quotes ("") and newlines. */
export function parseDelimited(text: string, delimiter: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = "";
	let quoted = false;
	for (let index = 0; index < text.length; index++) {
		const character = text[index];
		if (quoted) {
			if (character === '"') {
				if (text[index + 1] === '"') {
					field += '"';
					index++;
				} else quoted = false;
			} else field += character;
		} else if (character === '"' && field === "") quoted = true;
		else if (character === delimiter) {
			row.push(field);
			field = "";
		} else if (character === "\n") {
			row.push(field);
			rows.push(row);
			row = [];
			field = "";
		} else field += character;
	}
	if (field !== "" || row.length) {
		row.push(field);
		rows.push(row);
	}
	return rows.filter((record) => record.some((value) => value.trim() !== ""));
}

/** The delimiter that splits the first line into the most fields: comma, semicolon or tab. */
function detectDelimiter(text: string): string {
	const firstLine = text.slice(0, text.indexOf("\n") >= 0 ? text.indexOf("\n") : text.length);
	let best = ",";
	let bestCount = 0;
	for (const candidate of [",", ";", "\t"]) {
		const count = firstLine.split(candidate).length;
		if (count > bestCount) {
			best = candidate;
			bestCount = count;
		}
	}
	return best;
}

/**
 * .csv: the first record is the header; rows are grouped and every group repeats the header, so a
 * chunk of rows still says what its columns mean. Row numbers count data rows from 1.
 */
export function parseCsv(bytes: Uint8Array): ParsedDocument {
	const text = decodeText(bytes);
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
