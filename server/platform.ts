import { DEFAULT_SESSION_LIFETIMES, type SessionLifetimes } from "./modules/sessions/session-lifetimes";
import { once } from "node:events";
import { resolve } from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { DatabaseNotifications } from "./db/notifications";
import { TOOL_DEFAULTS } from "../contract/inputs/assistant-tools";
import { Egress, type EgressSettings } from "./egress/egress";
import { ToolListCache } from "./tools/tool-list-cache";
import type { HttpLimits } from "./http/http-server";
import type { OAuthOptions } from "./oauth/oauth-options";
import { openDatabase } from "./db/orm";
import { DEFAULT_EVALUATION_OPTIONS, declareEvaluationQueue, type EvaluationOptions } from "./jobs/evaluation-job";
import { startEvaluationWorker } from "./jobs/evaluation-worker";
import { PatternEngine } from "./modules/evaluations/scorers/pattern-engine";
import { declareIngestionQueue, INGESTION_JOB } from "./jobs/ingestion-job";
import { startIngestionWorker, startOrphanSweeper } from "./jobs/ingestion-worker";
import { JobQueue } from "./jobs/job-queue";
import { WORKER_JOBS, type WorkerJob } from "./jobs/worker-jobs";
import { VectorIndexes } from "./knowledge/index/vector-indexes";
import { DEFAULT_KNOWLEDGE_OPTIONS, type KnowledgeOptions } from "./knowledge/options";
import { ParserPool } from "./knowledge/parse/parser-pool";
import { createKnowledgeSearchCaches } from "./knowledge/search/search-caches";
import { LocalDiskStorage, objectsDirectory } from "./knowledge/storage/local-disk-storage";
import type { ObjectStorage } from "./knowledge/storage/object-storage";
import { UploadTokenSigner } from "./knowledge/storage/upload-token";
import { ApiKeyCache } from "./modules/api-keys/api-key-cache";
import { DeploymentResolver } from "./modules/assistants/deployment-cache";
import type { PlatformServices, PlatformSettings } from "./modules/platform-services";
import { DEFAULT_QUOTAS, type QuotaDefaults, RequestQuotas } from "./modules/quotas/consume-request-quota";
import { RedisWindowCounter } from "./modules/quotas/redis-window-counter";
import { ProviderAdapters } from "./modules/runtime/provider-adapters";
import { RunningGenerations } from "./modules/runtime/running-generations";
import { DEFAULT_SIGN_IN_THROTTLE, type SignInThrottleOptions } from "./modules/oauth/sign-in-throttle";
import { UpstreamHttp } from "./providers/upstream-http";
import { TraceWriter } from "./modules/traces/trace-writer";
import { DEFAULT_PASSWORD_HASHING_LIMITS, PasswordHashing, type PasswordHashingLimits, SecretBox } from "./shared/crypto";
import { createLogger, type Logger } from "./shared/logger";
import { DEFAULT_OBSERVABILITY_OPTIONS, Observability, type ObservabilityOptions } from "./observability/observability";
import { TrustedProxies } from "./shared/trusted-proxies";

/** On stop, how long the trace writer's last flush waits for generations still running (an evaluation case on a slow provider). */
const GENERATIONS_SETTLE_MS = 10_000;

export interface PlatformOptions {
	databaseUrl: string;
	secretKey: string;
	port: number;
	host?: string;
	/** Defaults to http://localhost:<the port listened on>. */
	publicBaseUrl?: string;
	logger?: Logger;
	/** Root of stored document bytes (DATA_DIR); objects go under its `objects/`. */
	dataDirectory?: string;
	knowledge?: Partial<KnowledgeOptions>;
	/** Evaluation runs: worker inline or off, runs at once, lease (server/jobs/evaluation-job.ts). */
	evaluations?: Partial<EvaluationOptions>;
	/** Per-key requests per minute and monthly spend quota, unless a workspace overrides them. */
	quotas?: Partial<QuotaDefaults>;
	/** REDIS_URL: rate-limit counters in Redis rather than PostgreSQL (docs/runtime.md, Quotas). */
	redisUrl?: string;
	/** Socket limits: HTTP_MAX_CONNECTIONS, HTTP_REQUEST_TIMEOUT_SECONDS (server/http/http-server.ts). */
	http?: Partial<HttpLimits>;
	/** The MCP control plane's authorization server (server/oauth/oauth-options.ts). */
	oauth?: Partial<OAuthOptions>;
	/** EGRESS_ALLOW_HOSTS: the special-use addresses tenant-aimed calls may reach after all (server/egress/egress.ts); none by default. */
	egress?: EgressSettings;
	/** Sign-in throttling: allowances and delays (server/modules/oauth/sign-in-throttle.ts). */
	signIn?: Partial<SignInThrottleOptions>;
	/** scrypt computations at once, and waiting (server/shared/crypto.ts). */
	passwordHashing?: Partial<PasswordHashingLimits>;
	/** TRUSTED_PROXIES: addresses and CIDR ranges whose X-Forwarded-For names the client (server/shared/trusted-proxies.ts). */
	trustedProxies?: string[];
	/** Dashboard sessions: SESSION_IDLE_MINUTES, SESSION_LIFETIME_HOURS (server/modules/sessions). */
	sessions?: Partial<SessionLifetimes>;
	/** The built dashboard (dist/web, `npm run build`); unset: its pages answer that it is not built. */
	webDirectory?: string;
	/** openapi.yaml, served at /openapi.yaml, /openapi.json and rendered at /docs; default: ./openapi.yaml from the working directory. */
	openApiDocument?: string;
	/** METRICS_PORT, METRICS_TOKEN, ACCESS_LOG (server/observability). */
	observability?: Partial<ObservabilityOptions>;
	/** WORKER_JOBS: what a `worker` process runs; default all of them. */
	workerJobs?: readonly WorkerJob[];
}

/**
 * What runs in this process besides answering calls: `server` (HTTP, plus the ingestion worker
 * when KNOWLEDGE_WORKER=inline), `worker` (ingestion only) or `cli` (one command, no background
 * work, no cache listener).
 */
export type ProcessRole = "server" | "worker" | "cli";

export interface ServicesHandle {
	services: PlatformServices;
	/** Stops background work, flushes traces, closes connections, in reverse order of creation. */
	close(): Promise<void>;
}

/**
 * The composition root: builds the one PlatformServices of a process, in dependency order
 * (database -> notifications -> job queue -> secrets -> object storage -> vector indexes and
 * search caches -> provider adapters, deployments, API keys -> quotas -> traces), then starts the
 * role's background work. HTTP (startPlatform), the worker (server/worker.ts) and the operator CLI
 * (scripts/admin.ts) all use it, so each transport gets the same services.
 */
export async function createPlatformServices(
	options: Omit<PlatformOptions, "port" | "host" | "publicBaseUrl"> & { publicBaseUrl: () => string },
	role: ProcessRole,
): Promise<ServicesHandle> {
	const logger = options.logger ?? createLogger("info");
	const closers: (() => Promise<void> | void)[] = [];
	const close = async () => {
		for (const closer of closers.reverse()) await closer();
	};
	try {
		const knowledge = { ...DEFAULT_KNOWLEDGE_OPTIONS, ...options.knowledge };
		const quotaDefaults = { ...DEFAULT_QUOTAS, ...options.quotas };
		const evaluations = { ...DEFAULT_EVALUATION_OPTIONS, ...options.evaluations };
		const settings: PlatformSettings = {
			get publicBaseUrl() {
				return options.publicBaseUrl();
			},
			knowledge,
			quotas: quotaDefaults,
			signIn: { ...DEFAULT_SIGN_IN_THROTTLE, ...options.signIn },
			trustedProxies: new TrustedProxies(options.trustedProxies ?? []),
			sessions: { ...DEFAULT_SESSION_LIFETIMES, ...options.sessions },
		};

		const observability = await Observability.create({ ...DEFAULT_OBSERVABILITY_OPTIONS, ...options.observability });
		// Closed last (closers run in reverse): the last spans, those of the final trace flush included, are exported.
		closers.push(() => observability.tracing?.close());
		closers.push(() => observability.metrics.close());

		// The worker's statements are all background work: on this machine's database they yield to the API's.
		const orm = await openDatabase(options.databaseUrl, { backgroundSessions: role === "worker" });
		closers.push(() => orm.close());

		const notifications = new DatabaseNotifications(options.databaseUrl, logger);
		closers.push(() => notifications.close());

		// Forked on the first document: a process that never ingests never has a parser. Created
		// before the job queue so it closes after it (closers run in reverse): running jobs finish first.
		const parsers = new ParserPool(knowledge.parsing, logger);
		closers.push(() => parsers.close());
		// Tenants' regular expressions (evaluation scorers) run on RE2 in a thread started on first use; closed after the jobs that match.
		const patterns = new PatternEngine(logger);
		closers.push(() => patterns.close());

		const jobs = await JobQueue.start(options.databaseUrl, logger, { supervise: role !== "cli", tracing: observability.tracing });
		// Here for a start that fails further on; on shutdown it has already run (registered again below).
		closers.push(() => jobs.stop());
		await declareIngestionQueue(jobs, knowledge);
		await declareEvaluationQueue(jobs, evaluations);

		const secrets = new SecretBox(options.secretKey);
		const signer = new UploadTokenSigner(options.secretKey);
		const localStorage = knowledge.storage.driver === "local" ? new LocalDiskStorage(objectsDirectory(options.dataDirectory ?? ".data"), signer, options.publicBaseUrl) : undefined;
		// The AWS and Pinecone SDKs are loaded only when configured: together they add about a second
		// to every start of a default (local disk, PostgreSQL vectors) installation.
		const storage: ObjectStorage =
			localStorage ?? new (await import("./knowledge/storage/s3-storage")).S3Storage(knowledge.storage as Extract<KnowledgeOptions["storage"], { driver: "s3" }>);
		closers.push(() => storage.close?.());

		const search = createKnowledgeSearchCaches(notifications, options.databaseUrl, knowledge.searchMemoryBytes, {
			directory: knowledge.indexDirectory,
			vectorIndexMinChunks: knowledge.vectorIndexMinChunks,
			lexiconFileMinChunks: knowledge.lexiconFileMinChunks,
			searchWarmUpMinChunks: knowledge.searchWarmUpMinChunks,
			vectorColumnCacheBytes: knowledge.vectorColumnCacheBytes,
			// A worker searches only for evaluations, and its upkeep makes index files: none of its threads start ahead.
			startThreadsForFiles: role === "server",
		});
		closers.push(() => search.close());
		const pinecone = knowledge.pinecone ? new (await import("./knowledge/index/pinecone-vector-index")).PineconeVectorIndex(knowledge.pinecone) : undefined;
		const vectorIndexes = new VectorIndexes(search.vectors, pinecone);

		const egress = new Egress(options.egress);
		closers.push(() => egress.close());
		const upstream = new UpstreamHttp(egress);

		const windows = options.redisUrl ? RedisWindowCounter.start(options.redisUrl, logger) : undefined;
		closers.push(() => windows?.close());
		let warnedAt = -Infinity;
		const quotas = new RequestQuotas(
			quotaDefaults,
			windows && {
				windows,
				onUnavailable: (error) => {
					// At most once a minute: every claim fails alike while Redis is down.
					if (Date.now() - warnedAt < 60_000) return;
					warnedAt = Date.now();
					logger.warn("rate-limit claims fall back to PostgreSQL: Redis did not answer", { error });
				},
			},
		);
		// The quota counts this process's spend from the end of each generation (SpendLedger).
		const traces = new TraceWriter(() => orm.em.fork(), logger, quotas, observability);
		// After the HTTP server has closed, and after the generations still running have recorded theirs.
		closers.push(() => traces.close());
		const generations = new RunningGenerations();
		closers.push(async () => {
			if (!(await generations.settled(GENERATIONS_SETTLE_MS))) {
				logger.warn("stopped waiting for generations still running; their traces are lost", { running: generations.count });
			}
		});
		// Running jobs use the providers, storage and trace writer above: they finish before any of those closes.
		closers.push(() => jobs.stop());

		const services: PlatformServices = {
			settings,
			logger,
			orm,
			notifications,
			jobs,
			secrets,
			egress,
			toolLists: new ToolListCache(TOOL_DEFAULTS.mcpToolListTtlMs),
			passwords: new PasswordHashing({ ...DEFAULT_PASSWORD_HASHING_LIMITS, ...options.passwordHashing }),
			storage,
			selfServedUploads: localStorage ? { store: localStorage, signer } : null,
			vectorIndexes,
			search,
			parsers,
			patterns,
			providers: new ProviderAdapters(secrets, notifications, upstream),
			deployments: new DeploymentResolver(notifications),
			apiKeys: new ApiKeyCache(notifications, logger),
			quotas,
			traces,
			generations,
			observability,
		};
		observability.metrics.observe({
			traceBacklog: () => traces.backlog,
			indexBuilderTasks: () => search.builders.load,
			ingestionQueueDepth: () => jobs.boss.getQueueSize(INGESTION_JOB.name),
			databasePool: () => {
				// knex's pool (tarn): what the platform's queries hold and wait for.
				const pool = orm.em.getKnex().client.pool as { numUsed(): number; numFree(): number; numPendingAcquires(): number } | undefined;
				return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() } : { used: 0, free: 0, pending: 0 };
			},
		});

		// Every cache subscribed above; a CLI command needs none of them (it reads through).
		if (role !== "cli") {
			await notifications.start().catch((error) => {
				// Caches read through while the listener is down (and it keeps retrying): not worth refusing to start over.
				logger.warn("could not LISTEN for cache invalidations; caches read through until it connects", { error });
			});
		}
		if (role !== "cli") {
			const sweeper = startOrphanSweeper(orm, services, logger);
			closers.push(() => sweeper.stop());
		}
		const workerJobs = new Set(options.workerJobs ?? WORKER_JOBS);
		if ((role === "worker" && workerJobs.has("ingestion")) || (role === "server" && knowledge.worker === "inline")) startIngestionWorker(orm, services, logger, observability.metrics, observability.tracing);
		if ((role === "worker" && workerJobs.has("evaluations")) || (role === "server" && evaluations.worker === "inline")) {
			// Registered after the job queue's second registration: running runs wind down before the providers and traces they use close.
			const evaluationWorker = startEvaluationWorker(services, evaluations, logger);
			closers.push(() => evaluationWorker.stop());
		}
		return { services, close };
	} catch (error) {
		await close().catch(() => {});
		throw error;
	}
}

export interface RunningPlatform {
	url: string;
	server: Server;
	services: PlatformServices;
	/** METRICS_PORT's listener (`…/metrics`), when configured. */
	metricsUrl?: string;
	close(): Promise<void>;
}

/** The services and the HTTP server, listening. Used by main.ts and by the tests alike. */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
	let publicBaseUrl = options.publicBaseUrl ?? "";
	const { services, close } = await createPlatformServices({ ...options, publicBaseUrl: () => publicBaseUrl }, "server");
	try {
		// Loaded here, not at the top: the worker and the operator CLI build the same services without HTTP.
		const [{ createRequestListener }, { createHttpServer, closeHttpServer, DEFAULT_HTTP_LIMITS }, { createOAuthEndpoints }, { createMcpServer }, { dashboardRoutes, uploadOriginOf }, { startMetricsListener }, { BodyThread }] = await Promise.all([
			import("./http/app"),
			import("./http/http-server"),
			import("./http/oauth-endpoints"),
			import("./mcp/create-mcp-server"),
			import("./http/web-assets"),
			import("./http/metrics-endpoint"),
			import("./http/body-thread"),
		]);
		const oauth = createOAuthEndpoints(services, options.oauth ?? {}, (context, request) => createMcpServer(context, request));
		const dashboard = dashboardRoutes(options.webDirectory, services.logger, () => {
			const origin = uploadOriginOf(services.settings.knowledge.storage, publicBaseUrl);
			return origin ? [origin] : [];
		});
		const bodies = new BodyThread();
		const server = createHttpServer(createRequestListener(services, oauth, dashboard, { openApiDocument: options.openApiDocument ?? resolve("openapi.yaml") }, bodies), options.http, services.logger).listen(options.port, options.host ?? "0.0.0.0");
		await once(server, "listening");
		const { port } = server.address() as AddressInfo;
		publicBaseUrl ||= `http://localhost:${port}`;
		// The issuer is the public address, known only now (port 0 in tests).
		await oauth.start().catch(async (error) => {
			server.close();
			throw error;
		});
		const { metricsPort } = services.observability.options;
		const metrics = metricsPort === undefined ? undefined : await startMetricsListener(services, metricsPort, options.host ?? "0.0.0.0");
		return {
			url: `http://127.0.0.1:${port}`,
			server,
			services,
			metricsUrl: metrics?.url,
			async close() {
				// Readiness fails from now on: a load balancer stops sending before the listener closes.
				services.observability.startDraining();
				await closeHttpServer(server, options.http?.shutdownGraceMs ?? DEFAULT_HTTP_LIMITS.shutdownGraceMs, () => services.generations.stopAll());
				await oauth.close();
				await metrics?.close();
				await bodies.close();
				await close();
			},
		};
	} catch (error) {
		await close();
		throw error;
	}
}
