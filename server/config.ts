import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { EgressAllowListError, parseEgressAllowList } from "./egress/allow-list";
import type { EgressSettings } from "./egress/egress";
import type { EvaluationOptions } from "./jobs/evaluation-job";
import { DEFAULT_KNOWLEDGE_OPTIONS, type KnowledgeOptions } from "./knowledge/options";
import { DEFAULT_PARSING_OPTIONS } from "./knowledge/parse/parser-pool";
import { WORKER_JOBS, type WorkerJob } from "./jobs/worker-jobs";
import { DEFAULT_SIGN_IN_THROTTLE, type SignInThrottleOptions } from "./modules/oauth/sign-in-throttle";
import type { SessionLifetimes } from "./modules/sessions/session-lifetimes";
import type { OAuthOptions } from "./oauth/oauth-options";
import { DEFAULT_PASSWORD_HASHING_LIMITS, type PasswordHashingLimits } from "./shared/crypto";
import type { ObservabilityOptions } from "./observability/observability";
import type { TracingOptions } from "./observability/tracing-types";
import { TrustedProxies } from "./shared/trusted-proxies";

/** A setting the process cannot start with; its message is the whole story, printed without a stack. */
export class ConfigurationError extends Error {
	override readonly name = "ConfigurationError";
}

/** SECRET_KEY and DATA_DIR/secret-key alike: the key encrypts every stored provider credential. */
const MINIMUM_SECRET_KEY_LENGTH = 32;

const ZEnvironment = z.object({
	PORT: z.coerce.number().int().min(0).max(65535).default(3000),
	HOST: z.string().default("0.0.0.0"),
	PUBLIC_BASE_URL: z.string().url().optional(),
	DATABASE_URL: z.string().url().optional(),
	DATA_DIR: z.string().default(".data"),
	// As root, where the embedded PostgreSQL goes when its account cannot enter DATA_DIR (server/db/database-url.ts).
	EMBEDDED_POSTGRES_DIR: z.string().optional(),
	SECRET_KEY: z.string().min(MINIMUM_SECRET_KEY_LENGTH, `SECRET_KEY must be at least ${MINIMUM_SECRET_KEY_LENGTH} characters`).optional(),
	LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
	// Socket limits (README, Configuration).
	HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1024),
	HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(120),
	HTTP_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(25),
	// Runtime quotas (docs/runtime.md). 0 = unlimited; unset spend quota = unlimited.
	RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
	MONTHLY_SPEND_QUOTA_MICRO_USD: z.coerce.number().int().min(0).optional(),
	// The MCP control plane's requests per minute, per connection and per user (README, MCP control plane). 0 = unlimited.
	MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(300),
	MCP_USER_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
	// Rate-limit counters in Redis instead of PostgreSQL; unset: PostgreSQL.
	REDIS_URL: z.string().url().optional(),
	// Knowledge (docs/knowledge.md).
	KNOWLEDGE_WORKER: z.enum(["process", "inline", "off"]).default("process"),
	// What `npm run worker` runs: ingestion, evaluations or both (a comma-separated list).
	WORKER_JOBS: z
		.string()
		.default("ingestion,evaluations")
		.transform((list) => [...new Set(list.split(",").map((job) => job.trim()).filter(Boolean))])
		.refine((jobs) => jobs.length > 0 && jobs.every((job) => (WORKER_JOBS as readonly string[]).includes(job)), `a comma-separated list of ${WORKER_JOBS.join(", ")}`)
		.transform((jobs) => jobs as WorkerJob[]),
	KNOWLEDGE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
	KNOWLEDGE_STORAGE_ALLOWANCE_BYTES: z.coerce.number().int().positive().default(1024 ** 3),
	KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(600),
	KNOWLEDGE_SWEEP_INTERVAL_SECONDS: z.coerce.number().positive().default(30),
	KNOWLEDGE_UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(900),
	KNOWLEDGE_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).default(0.5),
	// Search structures one process keeps across all sources, least recently searched leave first.
	KNOWLEDGE_SEARCH_MEMORY_MB: z.coerce.number().int().min(16).default(512),
	// Builtin sources' int8 vector columns one process keeps between searches (0: read from the page cache at every search).
	KNOWLEDGE_VECTOR_COLUMN_CACHE_MB: z.coerce.number().int().min(0).max(3072).default(DEFAULT_KNOWLEDGE_OPTIONS.vectorColumnCacheBytes / 1024 ** 2),
	KNOWLEDGE_VECTOR_INDEX_MIN_CHUNKS: z.coerce.number().int().min(1).default(DEFAULT_KNOWLEDGE_OPTIONS.vectorIndexMinChunks),
	// Where search index files are kept, so a restart opens them instead of rebuilding (default DATA_DIR/knowledge-index).
	KNOWLEDGE_INDEX_DIR: z.string().min(1).optional(),
	KNOWLEDGE_LEXICON_FILE_MIN_CHUNKS: z.coerce.number().int().min(1).default(DEFAULT_KNOWLEDGE_OPTIONS.lexiconFileMinChunks),
	KNOWLEDGE_SEARCH_WARM_UP_MIN_CHUNKS: z.coerce.number().int().min(1).default(DEFAULT_KNOWLEDGE_OPTIONS.searchWarmUpMinChunks),
	// Parsing: processes and each document's budgets (docs/knowledge.md, Parsing budgets).
	KNOWLEDGE_PARSER_PROCESSES: z.coerce.number().int().min(1).max(64).default(DEFAULT_PARSING_OPTIONS.processes),
	KNOWLEDGE_PARSER_MEMORY_MB: z.coerce.number().int().min(128).default(DEFAULT_PARSING_OPTIONS.memoryMegabytes),
	KNOWLEDGE_PARSE_TIMEOUT_SECONDS: z.coerce.number().positive().optional(),
	KNOWLEDGE_PARSE_RETRIES: z.coerce.number().int().min(0).max(10).default(DEFAULT_PARSING_OPTIONS.retries),
	KNOWLEDGE_PARSE_MAX_EXPANDED_BYTES: z.coerce.number().int().positive().default(DEFAULT_PARSING_OPTIONS.limits.maxExpandedBytes),
	KNOWLEDGE_PARSE_MAX_CHARACTERS: z.coerce.number().int().positive().default(DEFAULT_PARSING_OPTIONS.limits.maxCharacters),
	KNOWLEDGE_PARSE_MAX_CHUNKS: z.coerce.number().int().positive().default(DEFAULT_PARSING_OPTIONS.limits.maxChunks),
	KNOWLEDGE_STORAGE: z.enum(["local", "s3"]).default("local"),
	S3_BUCKET: z.string().min(1).optional(),
	S3_REGION: z.string().min(1).default("us-east-1"),
	S3_ENDPOINT: z.string().url().optional(),
	S3_ACCESS_KEY_ID: z.string().min(1).optional(),
	S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
	S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).optional(),
	KNOWLEDGE_VECTOR_STORE: z.enum(["postgres", "pinecone"]).default("postgres"),
	PINECONE_API_KEY: z.string().min(1).optional(),
	PINECONE_INDEX_HOST: z.string().url().optional(),
	PINECONE_CONTROLLER_HOST: z.string().url().optional(),
	// The MCP control plane's authorization server (docs/oauth.md).
	OAUTH_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
	OAUTH_REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
	OAUTH_REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(3600).default(30 * 24 * 3600),
	OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK: z.enum(["true", "false"]).default("false"),
	// Special-use addresses tenant-aimed calls (provider base URLs) may reach after all (server/egress/allow-list.ts).
	EGRESS_ALLOW_HOSTS: z.string().default(""),
	// Sign-in throttling and password hashing (README, Configuration).
	SIGN_IN_ATTEMPTS: z.coerce.number().int().min(1).default(DEFAULT_SIGN_IN_THROTTLE.attemptsPerAccountAndAddress),
	SIGN_IN_ADDRESS_ATTEMPTS: z.coerce.number().int().min(1).default(DEFAULT_SIGN_IN_THROTTLE.attemptsPerAddress),
	SIGN_IN_ACCOUNT_ATTEMPTS: z.coerce.number().int().min(1).default(DEFAULT_SIGN_IN_THROTTLE.attemptsPerAccount),
	SIGN_IN_BACKOFF_SECONDS: z.coerce.number().positive().max(86_400).default(DEFAULT_SIGN_IN_THROTTLE.backoffSeconds),
	SIGN_IN_BACKOFF_MAX_SECONDS: z.coerce.number().positive().max(86_400).default(DEFAULT_SIGN_IN_THROTTLE.backoffMaxSeconds),
	PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_PASSWORD_HASHING_LIMITS.concurrency),
	PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(DEFAULT_PASSWORD_HASHING_LIMITS.queue),
	TRUSTED_PROXIES: z.string().default(""),
	OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(0).default(30),
	// Evaluation runs (README, Evaluations).
	EVALUATION_WORKER: z.enum(["inline", "off"]).default("inline"),
	EVALUATION_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
	EVALUATION_RUNS_PER_WORKSPACE: z.coerce.number().int().min(1).max(64).default(1),
	EVALUATION_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(30),
	// Dashboard sessions (server/modules/sessions).
	SESSION_IDLE_MINUTES: z.coerce.number().min(1).max(7 * 24 * 60).default(120),
	SESSION_LIFETIME_HOURS: z.coerce.number().min(1).max(90 * 24).default(168),
	// Operations (docs/production.md): Prometheus metrics on a port of their own or behind a token, never public by default.
	METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
	METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
	ACCESS_LOG: z.enum(["true", "false"]).default("true"),
	// OpenTelemetry's standard variables (OTLP/HTTP); with neither endpoint set nothing of OpenTelemetry is loaded.
	OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
	OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
	OTEL_EXPORTER_OTLP_HEADERS: z.string().default(""),
	OTEL_SERVICE_NAME: z.string().min(1).default("ai-app-platform"),
	OTEL_SDK_DISABLED: z.enum(["true", "false"]).default("false"),
});

export interface Config {
	port: number;
	host: string;
	publicBaseUrl: string;
	/** Undefined: an embedded PostgreSQL is started under dataDirectory. */
	databaseUrl?: string;
	dataDirectory: string;
	/** EMBEDDED_POSTGRES_DIR; undefined: the default relocation directory. */
	embeddedPostgresDirectory: string | undefined;
	secretKey: string;
	logLevel: z.infer<typeof ZEnvironment>["LOG_LEVEL"];
	knowledge: KnowledgeOptions;
	evaluations: EvaluationOptions;
	quotas: { rateLimitPerMinute: number; monthlySpendQuotaMicroUsd: number | null; mcpConnectionRequestsPerMinute: number; mcpUserRequestsPerMinute: number };
	redisUrl: string | undefined;
	/** KNOWLEDGE_WORKER=process: `npm start` runs one worker process beside the server (server/jobs/worker-process.ts). */
	workerProcess: boolean;
	/** WORKER_JOBS: what `npm run worker` runs. */
	workerJobs: WorkerJob[];
	http: { maxConnections: number; requestTimeoutMs: number; shutdownGraceMs: number };
	oauth: Partial<OAuthOptions>;
	egress: EgressSettings;
	signIn: SignInThrottleOptions;
	passwordHashing: PasswordHashingLimits;
	trustedProxies: string[];
	sessions: SessionLifetimes;
	observability: ObservabilityOptions;
}

/** The OTLP endpoint for traces, per the OpenTelemetry specification's environment variables; undefined: tracing off. */
function tracingOptions(env: z.infer<typeof ZEnvironment>): TracingOptions | undefined {
	if (env.OTEL_SDK_DISABLED === "true") return undefined;
	const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
	if (!tracesEndpoint) return undefined;
	const headers: Record<string, string> = {};
	for (const pair of env.OTEL_EXPORTER_OTLP_HEADERS.split(",")) {
		const at = pair.indexOf("=");
		if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
	}
	return { tracesEndpoint, headers, serviceName: env.OTEL_SERVICE_NAME };
}

/**
 * Reads the environment once, at start, and fails fast naming each bad variable.
 * SECRET_KEY, when unset, is generated once into the data directory so restarts (and the operator
 * CLI) decrypt what earlier runs encrypted.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
	const parsed = ZEnvironment.safeParse(environment);
	if (!parsed.success) {
		const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
		throw new ConfigurationError(`Invalid configuration: ${problems}`);
	}
	const env = parsed.data;
	const missing = [
		...(env.KNOWLEDGE_STORAGE === "s3" && !env.S3_BUCKET ? ["S3_BUCKET (KNOWLEDGE_STORAGE=s3)"] : []),
		...(env.S3_ACCESS_KEY_ID && !env.S3_SECRET_ACCESS_KEY ? ["S3_SECRET_ACCESS_KEY (S3_ACCESS_KEY_ID is set)"] : []),
		...(env.KNOWLEDGE_VECTOR_STORE === "pinecone" && !env.PINECONE_API_KEY ? ["PINECONE_API_KEY (KNOWLEDGE_VECTOR_STORE=pinecone)"] : []),
		...(env.KNOWLEDGE_VECTOR_STORE === "pinecone" && !env.PINECONE_INDEX_HOST ? ["PINECONE_INDEX_HOST (KNOWLEDGE_VECTOR_STORE=pinecone)"] : []),
	];
	if (missing.length > 0) throw new ConfigurationError(`Invalid configuration: missing ${missing.join("; ")}`);
	const trustedProxies = env.TRUSTED_PROXIES.split(",")
		.map((entry) => entry.trim())
		.filter((entry) => entry !== "");
	try {
		new TrustedProxies(trustedProxies);
	} catch (error) {
		throw new ConfigurationError(`Invalid configuration: TRUSTED_PROXIES: ${(error as Error).message}`);
	}
	// Shorter than the processing timeout, else the sweeper would take a document still being
	// parsed for orphaned and run it twice; unset, at most half of it.
	const parseTimeoutSeconds = env.KNOWLEDGE_PARSE_TIMEOUT_SECONDS ?? Math.min(DEFAULT_PARSING_OPTIONS.timeoutSeconds, env.KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS / 2);
	if (parseTimeoutSeconds >= env.KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS) {
		throw new ConfigurationError(
			`Invalid configuration: KNOWLEDGE_PARSE_TIMEOUT_SECONDS (${parseTimeoutSeconds}) must be shorter than KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS (${env.KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS})`,
		);
	}
	let egressAllowList: EgressSettings["allowList"];
	try {
		egressAllowList = parseEgressAllowList(env.EGRESS_ALLOW_HOSTS);
	} catch (error) {
		if (error instanceof EgressAllowListError) throw new ConfigurationError(`Invalid configuration: EGRESS_ALLOW_HOSTS: ${error.message}`);
		throw error;
	}
	const dataDirectory = resolve(env.DATA_DIR);
	return {
		port: env.PORT,
		host: env.HOST,
		publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ""),
		databaseUrl: env.DATABASE_URL,
		dataDirectory,
		embeddedPostgresDirectory: env.EMBEDDED_POSTGRES_DIR && resolve(env.EMBEDDED_POSTGRES_DIR),
		secretKey: env.SECRET_KEY ?? readOrCreateSecretKey(dataDirectory),
		logLevel: env.LOG_LEVEL,
		quotas: {
			rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
			monthlySpendQuotaMicroUsd: env.MONTHLY_SPEND_QUOTA_MICRO_USD ?? null,
			mcpConnectionRequestsPerMinute: env.MCP_RATE_LIMIT_PER_MINUTE,
			mcpUserRequestsPerMinute: env.MCP_USER_RATE_LIMIT_PER_MINUTE,
		},
		redisUrl: env.REDIS_URL,
		workerProcess: env.KNOWLEDGE_WORKER === "process",
		workerJobs: env.WORKER_JOBS,
		http: {
			maxConnections: env.HTTP_MAX_CONNECTIONS,
			requestTimeoutMs: Math.round(env.HTTP_REQUEST_TIMEOUT_SECONDS * 1000),
			shutdownGraceMs: Math.round(env.HTTP_SHUTDOWN_GRACE_SECONDS * 1000),
		},
		oauth: {
			accessTokenTtlSeconds: env.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
			refreshReuseGraceSeconds: env.OAUTH_REFRESH_REUSE_GRACE_SECONDS,
			refreshTokenTtlSeconds: env.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
			clientMetadataAllowLoopback: env.OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK === "true",
			registrationsPerHour: env.OAUTH_REGISTRATIONS_PER_HOUR,
		},
		egress: { allowList: egressAllowList },
		signIn: {
			attemptsPerAccountAndAddress: env.SIGN_IN_ATTEMPTS,
			attemptsPerAddress: env.SIGN_IN_ADDRESS_ATTEMPTS,
			attemptsPerAccount: env.SIGN_IN_ACCOUNT_ATTEMPTS,
			backoffSeconds: env.SIGN_IN_BACKOFF_SECONDS,
			backoffMaxSeconds: Math.max(env.SIGN_IN_BACKOFF_MAX_SECONDS, env.SIGN_IN_BACKOFF_SECONDS),
		},
		passwordHashing: { concurrency: env.PASSWORD_HASH_CONCURRENCY, queue: env.PASSWORD_HASH_QUEUE },
		trustedProxies,
		observability: { metricsPort: env.METRICS_PORT, metricsToken: env.METRICS_TOKEN, accessLog: env.ACCESS_LOG === "true", tracing: tracingOptions(env) },
		sessions: { idleSeconds: Math.round(env.SESSION_IDLE_MINUTES * 60), absoluteSeconds: Math.round(env.SESSION_LIFETIME_HOURS * 3600) },
		evaluations: {
			worker: env.EVALUATION_WORKER,
			workerConcurrency: env.EVALUATION_WORKER_CONCURRENCY,
			runsPerWorkspace: env.EVALUATION_RUNS_PER_WORKSPACE,
			leaseSeconds: env.EVALUATION_LEASE_SECONDS,
			pollIntervalSeconds: env.KNOWLEDGE_POLL_INTERVAL_SECONDS,
		},
		knowledge: {
			// `process`: main.ts runs the worker beside the server; this process itself does not ingest.
			worker: env.KNOWLEDGE_WORKER === "inline" ? "inline" : "off",
			workerConcurrency: env.KNOWLEDGE_WORKER_CONCURRENCY,
			storageAllowanceBytes: env.KNOWLEDGE_STORAGE_ALLOWANCE_BYTES,
			processingTimeoutSeconds: env.KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS,
			sweepIntervalSeconds: env.KNOWLEDGE_SWEEP_INTERVAL_SECONDS,
			uploadUrlTtlSeconds: env.KNOWLEDGE_UPLOAD_URL_TTL_SECONDS,
			pollIntervalSeconds: env.KNOWLEDGE_POLL_INTERVAL_SECONDS,
			searchMemoryBytes: env.KNOWLEDGE_SEARCH_MEMORY_MB * 1024 ** 2,
			vectorColumnCacheBytes: env.KNOWLEDGE_VECTOR_COLUMN_CACHE_MB * 1024 ** 2,
			vectorIndexMinChunks: env.KNOWLEDGE_VECTOR_INDEX_MIN_CHUNKS,
			lexiconFileMinChunks: env.KNOWLEDGE_LEXICON_FILE_MIN_CHUNKS,
			searchWarmUpMinChunks: env.KNOWLEDGE_SEARCH_WARM_UP_MIN_CHUNKS,
			indexDirectory: resolve(env.KNOWLEDGE_INDEX_DIR ?? join(dataDirectory, "knowledge-index")),
			storage:
				env.KNOWLEDGE_STORAGE === "s3"
					? {
							driver: "s3",
							bucket: env.S3_BUCKET as string,
							region: env.S3_REGION,
							endpoint: env.S3_ENDPOINT,
							accessKeyId: env.S3_ACCESS_KEY_ID,
							secretAccessKey: env.S3_SECRET_ACCESS_KEY,
							// Custom endpoints (MinIO, local servers) rarely have per-bucket DNS names.
							forcePathStyle: env.S3_FORCE_PATH_STYLE ? env.S3_FORCE_PATH_STYLE === "true" : Boolean(env.S3_ENDPOINT),
						}
					: { driver: "local" },
			vectorStore: env.KNOWLEDGE_VECTOR_STORE,
			parsing: {
				processes: env.KNOWLEDGE_PARSER_PROCESSES,
				memoryMegabytes: env.KNOWLEDGE_PARSER_MEMORY_MB,
				timeoutSeconds: parseTimeoutSeconds,
				retries: env.KNOWLEDGE_PARSE_RETRIES,
				limits: {
					maxExpandedBytes: env.KNOWLEDGE_PARSE_MAX_EXPANDED_BYTES,
					maxCharacters: env.KNOWLEDGE_PARSE_MAX_CHARACTERS,
					maxChunks: env.KNOWLEDGE_PARSE_MAX_CHUNKS,
				},
			},
			// Sources created with Pinecone keep needing it after the default changes back to postgres.
			pinecone:
				env.PINECONE_API_KEY && env.PINECONE_INDEX_HOST
					? { apiKey: env.PINECONE_API_KEY, indexHost: env.PINECONE_INDEX_HOST, controllerHost: env.PINECONE_CONTROLLER_HOST }
					: undefined,
		},
	};
}

function readOrCreateSecretKey(dataDirectory: string): string {
	const path = join(dataDirectory, "secret-key");
	if (!existsSync(path)) {
		mkdirSync(dataDirectory, { recursive: true });
		// Written under a temporary name, then linked into place: link() fails if another process
		// (the server and a worker starting together) got there first, and nobody ever reads a
		// half-written key.
		const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
		try {
			writeFileSync(temporary, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 });
			chmodSync(temporary, 0o600);
			linkSync(temporary, path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		} finally {
			rmSync(temporary, { force: true });
		}
	}
	const key = readFileSync(path, "utf8").trim();
	if (key.length < MINIMUM_SECRET_KEY_LENGTH) {
		throw new ConfigurationError(
			`Invalid configuration: ${path} holds ${key.length === 0 ? "no key" : `a ${key.length}-character key`} and a secret key needs at least ${MINIMUM_SECRET_KEY_LENGTH} characters; restore the original file (stored provider credentials were encrypted with it) or, if nothing was ever stored, delete it to have a new one generated.`,
		);
	}
	return key;
}
