import { DOCUMENT_TYPES, type DocumentExtension } from "../../contract/schemas/knowledge";
import { AppError } from "../shared/app-error";

export function extensionOf(filename: string): string {
	const dot = filename.lastIndexOf(".");
	return dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
}

/** `text/plain; charset=utf-8` -> `text/plain`: parameters do not change which type was meant. */
function mediaType(contentType: string): string {
	return contentType.split(";")[0].trim().toLowerCase();
}

/**
 * Checks the extension is supported and the content type agrees with it (spec, Knowledge rules 1,
 * 2 and 4); an omitted type is derived from the extension. Returns the type to store.
 */
export function resolveDocumentType(filename: string, contentType: string | undefined): { extension: DocumentExtension; contentType: string } {
	const extension = extensionOf(filename);
	if (!(extension in DOCUMENT_TYPES)) {
		throw AppError.validation(
			[{ field: "filename", issue: `Unsupported file type '.${extension}'; supported: ${Object.keys(DOCUMENT_TYPES).map((name) => `.${name}`).join(", ")}` }],
			"Unsupported file type",
		);
	}
	const accepted: readonly string[] = DOCUMENT_TYPES[extension as DocumentExtension];
	if (contentType === undefined) return { extension: extension as DocumentExtension, contentType: accepted[0] };
	const given = mediaType(contentType);
	if (!accepted.includes(given)) {
		throw AppError.validation(
			[{ field: "contentType", issue: `'${given}' does not match the '.${extension}' extension; expected ${accepted.join(" or ")}` }],
			"Content type does not match the file extension",
		);
	}
	return { extension: extension as DocumentExtension, contentType: given };
}

/** Strict base64 (standard or URL-safe alphabet, whitespace ignored); null when it does not decode. */
export function decodeBase64(text: string): Buffer | null {
	const compact = text.replace(/\s+/g, "");
	if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return null;
	const unpadded = compact.replace(/=+$/, "");
	if (unpadded.length % 4 === 1) return null;
	if (compact.includes("=") && compact.length % 4 !== 0) return null;
	return Buffer.from(unpadded.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}
