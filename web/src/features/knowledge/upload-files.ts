import { managementApi, unwrap } from "../../api/management-client";

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
