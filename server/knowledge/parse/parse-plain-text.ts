import { decodeText } from "./decode-text";
import { type ParsedDocument, paragraphs } from "./parsed-document";

/** .txt: paragraphs as written. */
export function parsePlainText(bytes: Uint8Array): ParsedDocument {
	return { blocks: paragraphs(decodeText(bytes)) };
}
