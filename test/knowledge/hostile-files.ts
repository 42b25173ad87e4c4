import { crc32, deflateRawSync, deflateSync } from "node:zlib";

/**
 * Files built in the test, byte by byte: small well-formed documents, decompression bombs and
 * inputs that made parsers super-linear. No binary fixtures.
 */

export interface ZipMember {
	name: string;
	data: Buffer;
	/** The uncompressed size written in the headers; a bomb may lie (defaults to the truth). */
	declaredSize?: number;
	/** Deflated unless false. */
	deflate?: boolean;
}

/** A ZIP archive (APPNOTE 4.3) written by hand: local headers, deflated data, central directory, end record. */
export function zipArchive(members: ZipMember[]): Buffer {
	const parts: Buffer[] = [];
	const central: Buffer[] = [];
	let offset = 0;
	for (const member of members) {
		const name = Buffer.from(member.name, "utf8");
		const deflate = member.deflate !== false;
		const data = deflate ? deflateRawSync(member.data, { level: 9 }) : member.data;
		const size = member.declaredSize ?? member.data.length;
		const checksum = crc32(member.data);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4);
		local.writeUInt16LE(deflate ? 8 : 0, 8);
		local.writeUInt32LE(checksum, 14);
		local.writeUInt32LE(data.length, 18);
		local.writeUInt32LE(size, 22);
		local.writeUInt16LE(name.length, 26);
		const entry = Buffer.alloc(46);
		entry.writeUInt32LE(0x02014b50, 0);
		entry.writeUInt16LE(20, 4);
		entry.writeUInt16LE(20, 6);
		entry.writeUInt16LE(deflate ? 8 : 0, 10);
		entry.writeUInt32LE(checksum, 16);
		entry.writeUInt32LE(data.length, 20);
		entry.writeUInt32LE(size, 24);
		entry.writeUInt16LE(name.length, 28);
		entry.writeUInt32LE(offset, 42);
		parts.push(local, name, data);
		central.push(entry, name);
		offset += 30 + name.length + data.length;
	}
	const directory = Buffer.concat(central);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(members.length, 8);
	end.writeUInt16LE(members.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...parts, directory, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const PACKAGE_RELATIONSHIPS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

export function wordParagraphs(paragraphs: string[]): string {
	const body = paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`).join("");
	return `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}

/** A minimal DOCX mammoth reads: content types, the package relationships and word/document.xml. */
export function docx(documentXml: string | Buffer, options: { declaredSize?: number; extra?: ZipMember[] } = {}): Buffer {
	return zipArchive([
		{ name: "[Content_Types].xml", data: Buffer.from(CONTENT_TYPES) },
		{ name: "_rels/.rels", data: Buffer.from(PACKAGE_RELATIONSHIPS) },
		{ name: "word/document.xml", data: Buffer.from(documentXml), declaredSize: options.declaredSize },
		...(options.extra ?? []),
	]);
}

/**
 * A DOCX whose document.xml inflates to `expandedBytes` (one paragraph, then whitespace inside the
 * body, which deflates about 1000:1). `declaredSize` lets the archive lie about it.
 */
export function docxBomb(expandedBytes: number, declaredSize?: number): Buffer {
	const head = Buffer.from(wordParagraphs(["Bomb"]).replace("</w:body></w:document>", ""));
	const tail = Buffer.from("</w:body></w:document>");
	const padding = Buffer.alloc(Math.max(0, expandedBytes - head.length - tail.length), 0x20);
	return docx(Buffer.concat([head, padding, tail]), { declaredSize });
}

/**
 * A one-page PDF with a correct cross-reference table; `content` is the page's content stream,
 * deflated (FlateDecode) unless `deflate` is false.
 */
export function pdf(content: Buffer | string, options: { deflate?: boolean } = {}): Buffer {
	const raw = Buffer.from(content);
	const deflate = options.deflate !== false;
	// FlateDecode is zlib (RFC 1950: header and Adler-32), not raw deflate.
	const stream = deflate ? deflateSync(raw, { level: 9 }) : raw;
	const objects: Buffer[] = [
		Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
		Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		Buffer.from("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"),
		Buffer.concat([Buffer.from(`<< /Length ${stream.length}${deflate ? " /Filter /FlateDecode" : ""} >>\nstream\n`), stream, Buffer.from("\nendstream")]),
		Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
	];
	const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n")];
	const offsets: number[] = [];
	let length = chunks[0].length;
	objects.forEach((body, index) => {
		offsets.push(length);
		const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
		chunks.push(object);
		length += object.length;
	});
	const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`)].join("");
	chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
	return Buffer.concat(chunks);
}

/** PDF text operators showing `lines`, one per line down the page. */
export function pdfText(lines: string[]): string {
	return `BT /F1 10 Tf 12 TL 40 760 Td ${lines.map((line) => `(${line.replace(/[()\\]/g, "")}) '`).join(" ")} ET`;
}
