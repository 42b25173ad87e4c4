import type { EntityManager } from "@mikro-orm/postgresql";
import type { Orm } from "../db/orm";
import type { DatabaseNotifications } from "../db/notifications";
import type { Egress } from "../egress/egress";
import type { ToolListCache } from "../tools/tool-list-cache";
import type { JobQueue } from "../jobs/job-queue";
import type { KnowledgeSearchCaches } from "../knowledge/search/search-caches";
import type { VectorIndexes } from "../knowledge/index/vector-indexes";
import type { KnowledgeOptions } from "../knowledge/options";
import type { ParserPool } from "../knowledge/parse/parser-pool";
import type { ObjectStorage, SelfServedUploads } from "../knowledge/storage/object-storage";
import type { UploadTokenSigner } from "../knowledge/storage/upload-token";
import type { PasswordHashing, SecretBox } from "../shared/crypto";
import type { Logger } from "../shared/logger";
import type { Principal } from "../shared/principal";
import type { TrustedProxies } from "../shared/trusted-proxies";
import type { ApiKeyCache } from "./api-keys/api-key-cache";
import type { PatternEngine } from "./evaluations/scorers/pattern-engine";
import type { SignInThrottleOptions } from "./oauth/sign-in-throttle";
import type { DeploymentResolver } from "./assistants/deployment-cache";
import type { QuotaDefaults, RequestQuotas } from "./quotas/consume-request-quota";
import type { ProviderAdapters } from "./runtime/provider-adapters";
import type { RunningGenerations } from "./runtime/running-generations";
import type { SessionLifetimes } from "./sessions/session-lifetimes";
import type { TraceWriter } from "./traces/trace-writer";

/** Settings read once at start (server/config.ts) that use cases consult. */
export interface PlatformSettings {
	/** Where clients reach this server (presigned upload URLs, OAuth issuer). */
	readonly publicBaseUrl: string;
	readonly knowledge: KnowledgeOptions;
	readonly quotas: QuotaDefaults;
	readonly signIn: SignInThrottleOptions;
	/** Which client a request comes from (TRUSTED_PROXIES), for limits kept per client. */
	readonly trustedProxies: TrustedProxies;
	/** Dashboard sessions: idle and absolute lifetimes. */
	readonly sessions: SessionLifetimes;
}

/**
 * Everything a use case may need beyond its EntityManager, built once per process, in dependency
 * order, by the composition root (server/platform.ts). Every field is required: a use case never
 * behaves differently because a caller forgot to pass something.
 */
export interface PlatformServices {
	readonly settings: PlatformSettings;
	readonly logger: Logger;
	readonly orm: Orm;
	/** The one LISTEN connection of the process; channels are declared by the modules that own them. */
	readonly notifications: DatabaseNotifications;
	/** The one pg-boss of the process, for every queue. */
	readonly jobs: JobQueue;
	readonly secrets: SecretBox;
	/** The one way out for calls a tenant can aim (provider base URLs, tools): checked by the egress policy. */
	readonly egress: Egress;
	/** Remote MCP servers' tool lists for assistants' mcp tools, cached with a lifetime (server/tools). */
	readonly toolLists: ToolListCache;
	/** Every password hashed or checked in this process, a few at a time (server/shared/crypto.ts). */
	readonly passwords: PasswordHashing;
	readonly storage: ObjectStorage;
	/** Present when presigned URLs point at this server (local-disk storage), null for S3. */
	readonly selfServedUploads: { store: SelfServedUploads; signer: UploadTokenSigner } | null;
	readonly vectorIndexes: VectorIndexes;
	readonly search: KnowledgeSearchCaches;
	/** Parser processes for ingestion, forked on first use. */
	readonly parsers: ParserPool;
	/** Tenants' regular expressions, on RE2 in a thread of their own (evaluation scorers). */
	readonly patterns: PatternEngine;
	readonly providers: ProviderAdapters;
	readonly deployments: DeploymentResolver;
	readonly apiKeys: ApiKeyCache;
	readonly quotas: RequestQuotas;
	readonly traces: TraceWriter;
	/** Generations in flight: stopped when the server's shutdown grace is over, waited for before the last trace flush. */
	readonly generations: RunningGenerations;
}

/**
 * What every use case receives first: `verbNoun(context, input)`. HTTP routes, MCP tools and the
 * operator CLI each build one for their caller. `em` is forked on first use, so a request that is
 * answered from caches (the runtime's hot path) never creates an EntityManager.
 */
export interface UseCaseContext {
	readonly em: EntityManager;
	readonly services: PlatformServices;
	readonly principal: Principal;
}

export function createUseCaseContext(services: PlatformServices, principal: Principal): UseCaseContext {
	let em: EntityManager | undefined;
	return {
		get em() {
			em ??= services.orm.em.fork();
			return em;
		},
		services,
		principal,
	};
}

/** The same caller and services over another EntityManager: a use case calling others inside its transaction. */
export function withEntityManager(context: UseCaseContext, em: EntityManager): UseCaseContext {
	return { em, services: context.services, principal: context.principal };
}
