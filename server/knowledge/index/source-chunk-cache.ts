import type { EntityManager } from "@mikro-orm/postgresql";
import type pg from "pg";
import type { DatabaseNotifications } from "../../db/notifications";
import { withSessionLock } from "../../db/session-locks";
import type { IndexBuilderPool } from "./index-builder-pool";
import type { SearchMemoryBudget } from "./search-memory-budget";
import { KNOWLEDGE_CHUNKS_CHANNEL, readNotification } from "./vector-notifications";

/** Document id -> version (attempt and processing time) of the READY documents a structure holds. */
export type DocumentVersions = Map<string, string>;

/**
 * A document's version as SQL over `knowledge_documents d`: a re-ingestion (new attempt, new
 * processed_at in the READY transaction) or a retry changes it, so cached chunks of an older
 * version are replaced.
 */
export const DOCUMENT_VERSION_SQL = "concat(d.attempts, ':', d.processed_at)";

/**
 * What changed between the documents a structure holds and the source's READY ones now: `removed`
 * (gone, or held at another version) and `changed` (new, or at a new version) document ids.
 */
export function versionChanges(held: DocumentVersions, now: DocumentVersions): { removed: string[]; changed: string[] } {
	return {
		removed: [...held].filter(([documentId, version]) => now.get(documentId) !== version).map(([documentId]) => documentId),
		changed: [...now].filter(([documentId, version]) => held.get(documentId) !== version).map(([documentId]) => documentId),
	};
}

/** The source's READY documents (`id`), their `version`s and `chunk_count`s; `placeholder` is the driver's for the source id. */
function readyVersionsSql(placeholder: "$1" | "?"): string {
	return `select d.id, ${DOCUMENT_VERSION_SQL} as version, d.chunk_count from knowledge_documents d where d.source_id = ${placeholder} and d.status = 'READY'`;
}

/**
 * Chunks of new or re-ingested documents from which a refresh rebuilds the structure from the
 * database on builder threads (as a first search loads it) instead of absorbing them here:
 * absorbing is synchronous on the API's event loop (a search never sees half of it) and costs
 * tens of microseconds per chunk, so a bulk ingestion into a source searched before (900,000
 * chunks into one held at 100,000) held the loop for 75 s; 2,000 chunks are a few tens of
 * milliseconds.
 */
export const REBUILD_CHANGED_CHUNKS = 2_000;

/** The source's READY documents and their versions, read on a builder thread's connection (in its build's snapshot). */
export async function readyDocumentVersions(client: pg.Client, sourceId: string): Promise<DocumentVersions> {
	const { rows } = await client.query<{ id: string; version: string }>(readyVersionsSql("$1"), [sourceId]);
	return new Map(rows.map((row) => [row.id, row.version]));
}

/**
 * When a task that writes a source's index files (a lexicon file, a vector generation) may leave
 * them as they are, judged after it takes the source's fold lock, so a generation another process
 * published a moment ago counts: there is none and the source has fewer than `minChunks` READY
 * chunks, or there is one and documents new or re-ingested since hold fewer than
 * `minChangedChunks` chunks; or, with `whenQuiet`, a document of the source is still waiting to be
 * ingested (queued PENDING, or PROCESSING). Without it the task always writes.
 */
export interface FoldCondition {
	minChunks: number;
	minChangedChunks: number;
	whenQuiet?: boolean;
}

/** What `condition` says of a source whose current generation holds `held` (document versions), or of one with none. */
export async function foldIsDue(client: pg.Client, sourceId: string, held: DocumentVersions | null, condition: FoldCondition): Promise<boolean> {
	if (condition.whenQuiet) {
		// A document created for a presigned upload that never came is not waiting: it has no bytes and no job.
		const { rows } = await client.query<{ waiting: boolean }>(
			`select exists (select 1 from knowledge_documents where source_id = $1
			   and (status = 'PROCESSING' or (status = 'PENDING' and uploaded_at is not null))) as waiting`,
			[sourceId],
		);
		if (rows[0]?.waiting) return false;
	}
	const { rows } = await client.query<ReadyDocumentRow>(readyVersionsSql("$1"), [sourceId]);
	return held ? chunksChangedSince(held, rows) >= condition.minChangedChunks : chunksChangedSince(new Map(), rows) >= condition.minChunks;
}

/** A row of readyVersionsSql: a READY document, its version and its chunks. */
type ReadyDocumentRow = { id: string; version: string; chunk_count: number | null };

/** The chunks of READY documents (`rows`) new or at another version than in `held`: what a refresh would have to read. */
function chunksChangedSince(held: DocumentVersions, rows: ReadyDocumentRow[]): number {
	return rows.reduce((sum, row) => (held.get(row.id) === row.version ? sum : sum + Number(row.chunk_count ?? 0)), 0);
}

/**
 * Runs `write` holding the source's fold lock for `kind` (a PostgreSQL advisory lock of the
 * session, so every process on the database takes turns): a process that would fold what another
 * is folding waits for it, then finds (FoldCondition) that there is little left to fold.
 */
export async function withFoldLock<T>(client: pg.Client, kind: "lexicon" | "vectors", sourceId: string, write: () => Promise<T>): Promise<T> {
	return withSessionLock(client, [FOLD_LOCK_CLASS[kind], sourceId], write);
}

/** The first key of the fold locks' advisory locks ("KXL" and "KXV"), apart from any other advisory lock on the database. */
const FOLD_LOCK_CLASS = { lexicon: 0x4b584c, vectors: 0x4b5856 } as const;

/** How loadAll reads a source: `fromDatabase` skips the files a process wrote before (a rebuild after a change too large to absorb). */
export interface LoadOptions {
	fromDatabase?: boolean;
}

/** A source, and the workspace whose share of the index-builder threads its builds take. */
export interface SourceRef {
	id: string;
	workspace: string;
}

/** What a per-source structure must expose to be brought up to date document by document. */
export interface CachedSource {
	versions: DocumentVersions;
	/** Bytes held, counted against the process's search memory budget after each load or refresh. */
	memoryBytes(): number;
	/**
	 * Opened from files a process wrote earlier, not read from the database: its `versions` may be
	 * behind, so it is brought up to date (as after a change) before its first search.
	 */
	restored?: boolean;
}

interface Entry<T> {
	value: Promise<T>;
	/** A change was announced since the value (or its last refresh) read the database. */
	stale: boolean;
	refreshing?: Promise<T>;
}

/**
 * One in-memory structure per knowledge source, loaded once and shared by concurrent searches
 * (the promise is cached, not the value). A change announced for the source (NOTIFY on
 * `knowledge_vectors` from any process) only marks it stale: the next search compares the
 * source's READY documents and their versions with the ones held, and loads the chunks of new or
 * re-ingested documents and drops those of removed ones; so the first search after an ingestion
 * reads one document, not the whole source. A change of REBUILD_CHANGED_CHUNKS or more (a bulk
 * ingestion) is rebuilt from the database on builder threads instead, as a first search loads.
 * A `reload:` notification drops the source (a change document versions cannot reveal). While
 * the notification connection is down nothing is kept (every search loads, sharing only a load
 * already under way: a change could be missed), and everything is dropped when it resets, as
 * NotifiedCache does. A failed load or refresh drops the entry, so the next search starts over.
 *
 * Loading and rebuilding happen on index-builder threads (`builders`), never on the API's event
 * loop: a source of 100k chunks takes seconds to read and build, and every tenant's requests share
 * this loop. Concurrent first searches of a source share one load.
 *
 * What is kept counts against the process's SearchMemoryBudget (KNOWLEDGE_SEARCH_MEMORY_MB), shared
 * with the other cache: past it the least recently searched sources are dropped.
 */
export abstract class SourceChunkCache<T extends CachedSource> {
	private readonly entries = new Map<string, Entry<T>>();
	/** Loads under way while nothing is kept (notifications down): concurrent searches still share one. */
	private readonly unkeptLoads = new Map<string, Promise<T>>();
	/** Counters for operators, the benchmark and tests: full loads, incremental refreshes, rebuilds after changes too large to absorb. */
	readonly statistics = { fullLoads: 0, restoredLoads: 0, refreshes: 0, rebuilds: 0, documentsLoaded: 0, documentsRemoved: 0 };

	constructor(
		private readonly notifications: DatabaseNotifications,
		protected readonly builders: IndexBuilderPool,
		private readonly budget: SearchMemoryBudget,
		/** Distinguishes this cache's sources from the other cache's in the shared budget. */
		private readonly budgetPrefix: string,
	) {
		notifications.subscribe(KNOWLEDGE_CHUNKS_CHANNEL, (payload) => {
			const { sourceId, reload } = readNotification(payload);
			if (reload) this.drop(sourceId);
			else this.invalidate(sourceId);
		});
		notifications.onReset(() => this.clear());
	}

	/** Everything the source's READY documents hold; from the files a process wrote before where there are some, unless `options.fromDatabase`. */
	protected abstract loadAll(em: EntityManager, source: SourceRef, options?: LoadOptions): Promise<T>;

	/**
	 * Reads the chunks of `changed` documents, then (synchronously, so a search never sees half of
	 * it) removes the chunks of `removed` ones and adds the new ones, updating `current.versions`;
	 * any reorganisation after that (a lexicon's re-inversion) swaps in synchronously too.
	 * `removed` includes changed documents held at an older version.
	 */
	protected abstract applyChanges(em: EntityManager, source: SourceRef, current: T, changes: { removed: string[]; changed: string[] }): Promise<void>;

	invalidate(sourceId: string): void {
		const entry = this.entries.get(sourceId);
		if (entry) entry.stale = true;
	}

	drop(sourceId: string): void {
		this.entries.delete(sourceId);
		this.budget.release(this.budgetPrefix + sourceId);
	}

	clear(): void {
		this.entries.clear();
		this.budget.releaseAll(this.budgetPrefix);
	}

	/** Counts a freshly loaded or refreshed structure, evicting others past the budget. */
	private account(sourceId: string, entry: Entry<T>, value: T): void {
		if (this.entries.get(sourceId) !== entry) return;
		this.budget.hold(this.budgetPrefix + sourceId, sourceId, value.memoryBytes(), () => this.forget(sourceId, entry));
	}

	protected current(em: EntityManager, source: SourceRef): Promise<T> {
		const sourceId = source.id;
		if (!this.notifications.listening) {
			let load = this.unkeptLoads.get(sourceId);
			if (!load) {
				load = this.load(em, source);
				this.unkeptLoads.set(sourceId, load);
				const done = () => this.unkeptLoads.delete(sourceId);
				load.then(done, done);
			}
			return load;
		}
		const entry = this.entries.get(sourceId);
		if (!entry) {
			const created: Entry<T> = { value: this.load(em, source), stale: false };
			this.entries.set(sourceId, created);
			created.value.then(
				(value) => {
					if (value.restored) this.statistics.restoredLoads++;
					else this.statistics.fullLoads++;
					this.account(sourceId, created, value);
				},
				() => this.forget(sourceId, created),
			);
			return created.value;
		}
		this.budget.touch(this.budgetPrefix + sourceId);
		if (entry.refreshing) return entry.refreshing;
		if (!entry.stale) return entry.value;
		entry.stale = false;
		const refreshing = entry.value.then((value) => this.refresh(em, source, value));
		entry.refreshing = refreshing;
		refreshing.then(
			(value) => {
				if (entry.refreshing === refreshing) {
					entry.refreshing = undefined;
					// A rebuild is a new structure: later searches take it.
					entry.value = refreshing;
				}
				this.account(sourceId, entry, value);
			},
			() => this.forget(sourceId, entry),
		);
		return refreshing;
	}

	/** loadAll, and a restored structure brought up to date from the database before anyone searches it. */
	private async load(em: EntityManager, source: SourceRef): Promise<T> {
		const value = await this.loadAll(em, source);
		return value.restored ? this.refresh(em, source, value) : value;
	}

	private forget(sourceId: string, entry: Entry<T>): void {
		if (this.entries.get(sourceId) === entry) this.drop(sourceId);
	}

	/** `value` brought up to date with the database, or a structure rebuilt from it when the change is too large to absorb. */
	private async refresh(em: EntityManager, source: SourceRef, value: T): Promise<T> {
		const rows: ReadyDocumentRow[] = await em.getConnection().execute(readyVersionsSql("?"), [source.id]);
		const now = new Map(rows.map((row) => [row.id, row.version]));
		const { removed, changed } = versionChanges(value.versions, now);
		this.statistics.refreshes++;
		if (removed.length === 0 && changed.length === 0) return value;
		if (chunksChangedSince(value.versions, rows) >= REBUILD_CHANGED_CHUNKS) {
			this.statistics.rebuilds++;
			// Files another process had just folded are taken as they are (FoldCondition), then caught up as a restart's.
			const rebuilt = await this.loadAll(em, source, { fromDatabase: true });
			return rebuilt.restored ? this.refresh(em, source, rebuilt) : rebuilt;
		}
		await this.applyChanges(em, source, value, { removed, changed });
		this.statistics.documentsLoaded += changed.length;
		this.statistics.documentsRemoved += removed.length;
		return value;
	}
}

