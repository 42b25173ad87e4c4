import express from "express";
import { acceptPresignedUpload } from "../../modules/knowledge/accept-upload";
import type { HttpDependencies } from "../context";

/**
 * PUT /uploads/:token: where local-disk presigned URLs point. Outside the ts-rest contract because
 * it takes raw bytes and no API key (spec, presigned flow step b); errors use the usual envelope.
 */
export function createUploadsRouter(dependencies: HttpDependencies): express.Router {
	const router = express.Router();
	const uploads = dependencies.knowledge?.selfServedUploads;
	if (!uploads) return router;
	router.put("/uploads/:token", async (request, response, next) => {
		try {
			await acceptPresignedUpload(dependencies.orm.em.fork(), uploads, {
				token: request.params.token,
				contentType: request.header("content-type"),
				contentLength: request.header("content-length"),
				body: request,
			});
			response.status(200).json({ uploaded: true });
		} catch (error) {
			next(error);
		}
	});
	return router;
}
