import type { IncomingMessage } from "node:http";
import { acceptPresignedUpload } from "../../modules/knowledge/accept-presigned-upload";
import type { PlatformServices } from "../../modules/platform-services";
import { AppError } from "../../shared/app-error";
import { sendJson } from "../middleware/errors";
import type { RawRoute } from "../raw-route";

/** The client hung up before sending every byte: nothing of ours failed, and nobody awaits an answer. */
function abortedByClient(request: IncomingMessage, error: unknown): boolean {
	return !(error instanceof AppError) && !request.complete && (request.destroyed || request.socket.destroyed);
}

const UPLOAD_PATH = /^\/uploads\/([^/]+)\/?$/;

/**
 * PUT /uploads/:token: where local-disk presigned URLs point. Outside the contract because it
 * takes raw bytes and no API key (spec, presigned flow step b); errors use the usual envelope.
 * A PUT the client aborts leaves the document PENDING with nothing stored (the URL stays usable)
 * and is logged at info, not as a failure of ours. Absent (404) when uploads go to S3.
 */
export function uploadsRoute(services: PlatformServices): RawRoute {
	return {
		name: "presigned upload",
		matches: (path, method) => method === "PUT" && services.selfServedUploads !== null && UPLOAD_PATH.test(path),
		errors: "envelope",
		async handle({ request, response, path, requestId }) {
			let token: string;
			try {
				token = decodeURIComponent(UPLOAD_PATH.exec(path)?.[1] ?? "");
			} catch {
				throw AppError.validation([{ field: "path", issue: "Malformed percent-encoding" }]);
			}
			try {
				await acceptPresignedUpload(
					{ em: services.orm.em.fork(), services },
					{ token, contentType: request.headers["content-type"], contentLength: request.headers["content-length"], body: request },
				);
				sendJson(response, 200, { uploaded: true });
			} catch (error) {
				if (!abortedByClient(request, error)) throw error;
				services.logger.info("presigned upload aborted by the client", { requestId });
			}
		},
	};
}
