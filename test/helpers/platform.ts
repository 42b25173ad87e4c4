import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SCOPES, type Scope } from "../../contract/common";
import { createApiKey } from "../../server/modules/api-keys/create-api-key";
import type { Orm } from "../../server/db/orm";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import type { EgressSettings } from "../../server/egress/egress";
import { createUseCaseContext, type UseCaseContext } from "../../server/modules/platform-services";
import { bootstrapInstallation } from "../../server/modules/tenancy/bootstrap";
import { createWorkspace } from "../../server/modules/tenancy/create-workspace";
import { type PlatformOptions, type RunningPlatform, startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { OPERATOR } from "../../server/shared/principal";
import { createTestDatabase } from "./database";

export const TEST_SECRET_KEY = "test-secret-key-0123456789abcdef0123456789";

/**
 * The stand-ins of outside services all listen on 127.0.0.1 (loopback-server.ts): the one address
 * the egress policy lets tenant-aimed calls reach in tests, as EGRESS_ALLOW_HOSTS would in production.
 */
export const TEST_EGRESS_ALLOW_HOSTS = "127.0.0.1";

/** The same as a platform option, for a test that starts a further instance with startPlatform itself. */
export const TEST_EGRESS: EgressSettings = { allowList: parseEgressAllowList(TEST_EGRESS_ALLOW_HOSTS) };

/** Every test owner's password (bootstrap). */
export const TEST_PASSWORD = "correct horse battery";

export interface TestWorkspace {
	organizationId: string;
	workspaceId: string;
	userId: string;
	/** The owner's email; their password is TEST_PASSWORD. */
	ownerEmail: string;
	/** A key with every scope. */
	apiKey: string;
	createKey(scopes: Scope[]): Promise<{ id: string; key: string }>;
}

export interface TestPlatform extends RunningPlatform {
	databaseUrl: string;
	orm: Orm;
	/** A use-case context acting as the operator (what the operator CLI gets). */
	operator(): UseCaseContext;
	/** Where stored document bytes live (objects/ under it). */
	dataDirectory: string;
	/** A fresh organization + workspace + owner + all-scope key. */
	createWorkspace(): Promise<TestWorkspace>;
	/** Authenticated JSON request against the running server. */
	request(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
	stop(): Promise<void>;
}

let counter = 0;

/** A real server on a random port over a database of its own, dropped on stop(). */
export async function startTestPlatform(options: Partial<PlatformOptions> = {}): Promise<TestPlatform> {
	// A test that brings its own database (one it stops and starts) keeps it; otherwise a fresh one, dropped on stop().
	const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createTestDatabase();
	// Stored document bytes go to a throwaway directory unless the test names one.
	const dataDirectory = options.dataDirectory ?? (await mkdtemp(join(tmpdir(), "platform-test-data-")));
	const platform = await startPlatform({
		dataDirectory,
		databaseUrl: database.url,
		secretKey: TEST_SECRET_KEY,
		port: 0,
		host: "127.0.0.1",
		logger: createLogger(process.env.TEST_LOG_LEVEL === "debug" ? "debug" : "silent"),
		egress: TEST_EGRESS,
		// The dashboard built by the global setup (test/global-setup.ts).
		webDirectory: join(import.meta.dirname, "..", "..", "dist", "web"),
		...options,
		// Unlimited requests per key unless a test sets a limit (options, or a workspace's rate_limit_per_minute):
		// polling a document every 50 ms would otherwise run into the default 600 a minute.
		quotas: { rateLimitPerMinute: 0, ...options.quotas },
		// Unlimited client registrations unless a test sets a limit: flows register a client each.
		oauth: { registrationsPerHour: 0, ...options.oauth },
	});
	const createTestWorkspace = async (): Promise<TestWorkspace> => {
		counter += 1;
		const ownerEmail = `owner${counter}-${Date.now()}@example.com`;
		const result = await bootstrapInstallation(createUseCaseContext(platform.services, OPERATOR), {
			organization: `Org ${counter}`,
			workspace: `Workspace ${counter}`,
			email: ownerEmail,
			password: TEST_PASSWORD,
		});
		return {
			...result,
			ownerEmail,
			createKey: async (scopes) => {
				const created = await createApiKey(createUseCaseContext(platform.services, OPERATOR), { workspaceId: result.workspaceId, name: "test key", scopes });
				return { id: created.id, key: created.key };
			},
		};
	};
	return {
		...platform,
		databaseUrl: database.url,
		orm: platform.services.orm,
		operator: () => createUseCaseContext(platform.services, OPERATOR),
		dataDirectory,
		createWorkspace: createTestWorkspace,
		request: (method, path, requestOptions = {}) =>
			fetch(`${platform.url}${path}`, {
				method,
				headers: {
					...(requestOptions.key ? { authorization: `Bearer ${requestOptions.key}` } : {}),
					...(requestOptions.body !== undefined ? { "content-type": "application/json" } : {}),
					...requestOptions.headers,
				},
				body: requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body),
			}),
		async stop() {
			await platform.close();
			await database.drop();
			if (!options.dataDirectory) await rm(dataDirectory, { recursive: true, force: true });
		},
	};
}

export { SCOPES, createWorkspace };
