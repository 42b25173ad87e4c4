import express from "express";
import { acceptPresignedUpload } from "../../modules/knowledge/accept-presigned-upload";
import type { PlatformServices } from "../../modules/platform-services";

/**
 * PUT /uploads/:token: where local-disk presigned URLs point. Outside the contract because it
 * takes raw bytes and no API key (spec, presigned flow step b); errors use the usual envelope.
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
			next(error);
		}
	});
	return router;
}
