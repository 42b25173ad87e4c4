import type { Readable } from "node:stream";
import { KnowledgeDocumentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

/**
 * The PUT behind a presigned URL served by this server (local-disk storage). The signed token is
 * the only credential (the request carries no API key, spec Knowledge rule 3): it names one object,
 * its content type and exact size, and an expiry; so the context has no principal. Exactly one PUT
 * is accepted; the bytes are stored as they stream in.
 */
export async function acceptPresignedUpload(
	context: Omit<UseCaseContext, "principal">,
	input: { token: string; contentType: string | undefined; contentLength: string | undefined; body: Readable },
): Promise<void> {
	const uploads = context.services.selfServedUploads;
	if (!uploads) throw AppError.notFound("Upload URL");
	const grant = uploads.signer.verify(input.token);
	if (!grant) throw new AppError("FORBIDDEN", "This upload URL is not valid");
	if (grant.expiresAt * 1000 < Date.now()) throw new AppError("FORBIDDEN", "This upload URL has expired; request a new one");
	if ((input.contentType ?? "").split(";")[0].trim().toLowerCase() !== grant.contentType) {
		throw new AppError("INVALID_REQUEST", `Content-Type must be ${grant.contentType}, as declared`);
	}
	if (input.contentLength === undefined || Number(input.contentLength) !== grant.byteSize) {
		throw new AppError("INVALID_REQUEST", `Content-Length must be ${grant.byteSize}, the declared byteSize`);
	}
	const document = await context.em.findOne(KnowledgeDocumentSchema, { storageKey: grant.key });
	if (!document) throw AppError.notFound("Knowledge document");
	if (document.uploadedAt !== null) throw new AppError("INVALID_REQUEST", "This document's upload is already complete");
	const outcome = await uploads.store.putOnce(grant.key, input.body, grant.byteSize);
	if (outcome === "exists") throw new AppError("INVALID_REQUEST", "The bytes for this upload URL were already uploaded");
	if (outcome === "size-mismatch") throw new AppError("INVALID_REQUEST", `The body must be exactly ${grant.byteSize} bytes`);
}
