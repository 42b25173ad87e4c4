import type { NextFunction, Request, Response } from "express";
import { deleteExpiredRateLimitWindows, type RequestQuotas } from "../../modules/quotas/consume-request-quota";
import type { HttpDependencies } from "../context";

const CLEANUP_EVERY_REQUESTS = 1000;

/** Per-key rate limit and workspace spend quota, after authentication, before any work. */
export function enforceQuotas({ orm, logger }: HttpDependencies, quotas: RequestQuotas) {
	let requests = 0;
	const em = () => orm.em.fork();
	return (request: Request, _response: Response, next: NextFunction) => {
		const principal = request.principal;
		if (!principal) return next();
		if (++requests % CLEANUP_EVERY_REQUESTS === 0) {
			deleteExpiredRateLimitWindows(em()).catch((error) => logger.warn("rate-limit cleanup failed", { error }));
		}
		let pending: Promise<void> | undefined;
		try {
			pending = quotas.consume(em, { apiKeyId: principal.apiKeyId, workspaceId: principal.workspaceId });
		} catch (error) {
			return next(error);
		}
		// Most requests are decided in memory: no promise, no extra turn of the event loop.
		if (!pending) return next();
		pending.then(() => next(), next);
	};
}
