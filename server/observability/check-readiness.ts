import { MIGRATIONS } from "../db/migrations";
import type { Orm } from "../db/orm";
import { AppError } from "../shared/app-error";
import type { Observability } from "./observability";

/** How long a readiness probe waits for the database before calling it unavailable. */
const DATABASE_TIMEOUT_MS = 2_000;

/**
 * Readiness (GET /readyz): the database answers within 2 s, every migration this build knows is
 * applied (a rolled-back database behind a newer build is not ready), and the process is not
 * draining. Otherwise 503 INTERNAL_ERROR naming the reason, so a load balancer takes the instance
 * out without restarting it (liveness is /healthz).
 */
export async function checkReadiness(orm: Orm, observability: Observability): Promise<{ status: "ready"; database: "ok"; migrations: "ok" }> {
	if (observability.draining) throw new AppError("INTERNAL_ERROR", "Draining: the server is shutting down", { status: 503 });
	let applied: { name: string }[];
	try {
		applied = await withTimeout(orm.em.getConnection().execute<{ name: string }[]>("select name from mikro_orm_migrations"), DATABASE_TIMEOUT_MS);
	} catch (error) {
		throw new AppError("INTERNAL_ERROR", "Database unavailable", { status: 503, cause: error });
	}
	// MikroORM stores names with or without the source file's extension, depending on how it ran.
	const names = new Set(applied.map((row) => row.name.replace(/\.[cm]?[jt]s$/, "")));
	const pending = MIGRATIONS.filter((migration) => !names.has(migration.name));
	if (pending.length > 0) {
		throw new AppError("INTERNAL_ERROR", `Migrations not applied: ${pending.length} pending (${pending.map((migration) => migration.name).join(", ")})`, { status: 503 });
	}
	return { status: "ready", database: "ok", migrations: "ok" };
}

function withTimeout<T>(promise: Promise<T>, milliseconds: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`no answer within ${milliseconds} ms`)), milliseconds);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
