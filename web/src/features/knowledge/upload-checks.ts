import { DOCUMENT_TYPES, type DocumentExtension, MAX_DOCUMENT_BYTES } from "../../../../contract/management";

/** The extensions the knowledge API accepts, from the contract, for the picker and for the checks below. */
export const ACCEPTED_EXTENSIONS = Object.keys(DOCUMENT_TYPES).map((extension) => `.${extension}`);

export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Why the knowledge API would refuse a file, said before any byte is sent (the server checks the
 * same limits again); null when it is acceptable. The type sent is the extension's own when the
 * browser does not know it (Markdown often has none).
 */
export function checkFile(file: { name: string; size: number; type: string }): { refusal: string } | { contentType: string } {
	const dot = file.name.lastIndexOf(".");
	const extension = dot < 0 ? "" : file.name.slice(dot + 1).toLowerCase();
	if (!(extension in DOCUMENT_TYPES)) {
		return { refusal: `${extension ? `.${extension} files are` : "Files without an extension are"} not accepted; accepted: ${ACCEPTED_EXTENSIONS.join(", ")}.` };
	}
	if (file.size === 0) return { refusal: "The file is empty." };
	if (file.size > MAX_DOCUMENT_BYTES) return { refusal: `The file is over the ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MB limit per file (it is ${formatBytes(file.size)}).` };
	const accepted: readonly string[] = DOCUMENT_TYPES[extension as DocumentExtension];
	const given = file.type.split(";")[0].trim().toLowerCase();
	return { contentType: accepted.includes(given) ? given : accepted[0] };
}
