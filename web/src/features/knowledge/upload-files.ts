import { DOCUMENT_TYPES, type DocumentExtension, MAX_DOCUMENT_BYTES } from "../../../../contract/schemas/knowledge";
import { managementApi, unwrap } from "../../api/management-client";

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
	if (file.size > MAX_DOCUMENT_BYTES) return { refusal: `The file is ${formatBytes(file.size)}; at most ${formatBytes(MAX_DOCUMENT_BYTES)} per file.` };
	const accepted: readonly string[] = DOCUMENT_TYPES[extension as DocumentExtension];
	const given = file.type.split(";")[0].trim().toLowerCase();
	return { contentType: accepted.includes(given) ? given : accepted[0] };
}

/** PUTs the bytes to the presigned URL, reporting progress (fetch cannot report upload progress; XMLHttpRequest can). */
function putBytes(url: string, headers: Record<string, string>, file: File, onProgress: (fraction: number) => void): Promise<void> {
	return new Promise((resolve, reject) => {
		const request = new XMLHttpRequest();
		request.open("PUT", url);
		for (const [name, value] of Object.entries(headers)) {
			// The browser sets Content-Length itself from the body, and refuses to be told.
			if (name.toLowerCase() !== "content-length") request.setRequestHeader(name, value);
		}
		request.upload.onprogress = (event) => {
			if (event.lengthComputable) onProgress(event.loaded / event.total);
		};
		request.onload = () => (request.status >= 200 && request.status < 300 ? resolve() : reject(new Error(uploadRefusal(request))));
		request.onerror = () => reject(new Error("The upload was interrupted; check the connection and try again."));
		request.send(file);
	});
}

function uploadRefusal(request: XMLHttpRequest): string {
	try {
		const body = JSON.parse(request.responseText) as { message?: string };
		if (body.message) return body.message;
	} catch {
		// Not the error envelope: say what status came back.
	}
	return `The upload was refused (${request.status}).`;
}

/** The presigned flow: a PENDING document and its upload URL, the bytes, then completion (which queues ingestion). */
export async function uploadFile(workspaceId: string, sourceId: string, file: File, contentType: string, onProgress: (fraction: number) => void): Promise<string> {
	const started = unwrap(
		await managementApi.knowledgeSources.createKnowledgeDocumentUpload({ params: { workspaceId, sourceId }, body: { filename: file.name, contentType, byteSize: file.size } }),
	);
	await putBytes(started.upload.url, started.upload.headers, file, onProgress);
	unwrap(await managementApi.knowledgeSources.completeKnowledgeDocumentUpload({ params: { workspaceId, sourceId, documentId: started.document.id } }));
	return started.document.id;
}
