import type { IncomingMessage } from "node:http";
import express from "express";
import { acceptPresignedUpload } from "../../modules/knowledge/accept-presigned-upload";
import type { PlatformServices } from "../../modules/platform-services";
import { AppError } from "../../shared/app-error";

/** The client hung up before sending every byte: nothing of ours failed, and nobody awaits an answer. */
function abortedByClient(request: IncomingMessage, error: unknown): boolean {
	return !(error instanceof AppError) && !request.complete && (request.destroyed || request.socket.destroyed);
}

/**
 * PUT /uploads/:token: where local-disk presigned URLs point. Outside the contract because it
 * takes raw bytes and no API key (spec, presigned flow step b); errors use the usual envelope.
 * A PUT the client aborts leaves the document PENDING with nothing stored (the URL stays usable)
 * and is logged at info, not as a failure of ours.
 */
export function createUploadsRouter(services: PlatformServices): express.Router {
	const router = express.Router();
	if (!services.selfServedUploads) return router;
	router.put("/uploads/:token", async (request, response, next) => {
		try {
			await acceptPresignedUpload(
				{ em: services.orm.em.fork(), services },
				{ token: request.params.token, contentType: request.header("content-type"), contentLength: request.header("content-length"), body: request },
			);
			response.status(200).json({ uploaded: true });
		} catch (error) {
			if (!abortedByClient(request, error)) return next(error);
			services.logger.info("presigned upload aborted by the client", { requestId: request.requestId });
		}
	});
	return router;
}
