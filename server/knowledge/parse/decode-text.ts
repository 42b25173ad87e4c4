/**
 * Bytes -> string for the text formats. Order: a byte-order mark decides (UTF-8, UTF-16 LE/BE);
 * else UTF-16 without BOM is recognised by its zero bytes (ASCII text in UTF-16 has one in every
 * pair); else strict UTF-8; else Windows-1252, the superset of Latin-1 that legacy files use.
 */
export function decodeText(bytes: Uint8Array): string {
	if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return clean(new TextDecoder("utf-8").decode(bytes.subarray(3)));
	if (bytes[0] === 0xff && bytes[1] === 0xfe) return clean(new TextDecoder("utf-16le").decode(bytes.subarray(2)));
	if (bytes[0] === 0xfe && bytes[1] === 0xff) return clean(new TextDecoder("utf-16be").decode(bytes.subarray(2)));
	const utf16 = guessUtf16(bytes);
	if (utf16) return clean(new TextDecoder(utf16).decode(bytes));
	try {
		return clean(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
	} catch {
		return clean(new TextDecoder("windows-1252").decode(bytes));
	}
}

function guessUtf16(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
	const sample = Math.min(bytes.length, 4096) & ~1;
	if (sample < 4) return null;
	let evenZeros = 0;
	let oddZeros = 0;
	for (let index = 0; index < sample; index += 2) {
		if (bytes[index] === 0) evenZeros++;
		if (bytes[index + 1] === 0) oddZeros++;
	}
	const pairs = sample / 2;
	if (oddZeros > pairs * 0.4 && evenZeros < pairs * 0.05) return "utf-16le";
	if (evenZeros > pairs * 0.4 && oddZeros < pairs * 0.05) return "utf-16be";
	return null;
}

/** NULs and CRs carry no meaning for search and confuse PostgreSQL (text cannot hold NUL). */
function clean(text: string): string {
	return text.replace(/\u0000/g, "").replace(/\r\n?/g, "\n");
}
