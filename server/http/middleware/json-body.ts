import express, { type NextFunction, type Request, type Response } from "express";
import { isAppRouteNoBody } from "@ts-rest/core";
import { REQUEST_BODY_LIMIT_BYTES } from "../../../contract/schemas/common";
import { AppError } from "../../shared/app-error";

export { REQUEST_BODY_LIMIT_BYTES };

const parseJson = express.json({ limit: REQUEST_BODY_LIMIT_BYTES, strict: true, type: () => true });

function hasBody(request: Request): boolean {
	return request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
}

/**
 * Reads JSON only for routes whose contract declares a body, after authentication.
 * Wrong or missing Content-Type and missing bodies are INVALID_REQUEST, not a confusing
 * validation error about every required field.
 */
export function jsonBody() {
	return (request: Request, response: Response, next: NextFunction) => {
		const route = (request as Request & { tsRestRoute?: { body?: Parameters<typeof isAppRouteNoBody>[0] } }).tsRestRoute;
		if (!route?.body || isAppRouteNoBody(route.body)) return next();
		if (!hasBody(request)) return next(new AppError("INVALID_REQUEST", "This endpoint needs a JSON object body"));
		if (!request.is(["application/json", "application/*+json"])) {
			return next(new AppError("INVALID_REQUEST", "Content-Type must be application/json"));
		}
		parseJson(request, response, next);
	};
}
