import type { IndexBuilderPool } from "./index-builder-pool";
import type { FoldCondition, SourceRef } from "./source-chunk-cache";

/** A source whose documents are being ingested, as the upkeep needs to know it. */
export interface UpkeptSource extends SourceRef {
	/** Its vectors are in its chunk rows (PostgreSQL), so the vector cache searches them (not Pinecone). */
	vectorsInChunkRows: boolean;
	/** A provider's embeddings (an HNSW graph) rather than the builtin embedder's sparse ones (column runs only). */
	denseQueries: boolean;
}

export interface IndexFileUpkeepSettings {
	/** KNOWLEDGE_INDEX_DIR; undefined: no files, nothing to keep. */
	directory?: string;
	lexiconMinChunks: number;
	vectorMinChunks: number;
	/** Chunks of new documents below which the files are left as they are (the searching processes absorb fewer in memory). */
	foldChunks: number;
	/** How long after a source's last READY document its files are folded if none of its documents is waiting. */
	quietMs: number;
	/** While an ingestion goes on, the share of what the files hold that new documents must reach for a fold. */
	growth: number;
}

/**
 * While an ingestion grows a source by less than half what its files hold, they are left as they
 * are: a lexicon fold copies the whole file, so folding at every foldChunks would copy a source
 * growing to a million chunks hundreds of times, and folding as it grows by half copies each chunk
 * about three times.
 */
export const UPKEEP_GROWTH = 0.5;

/**
 * A source whose ingestion has ended (no document waiting this long after its last READY one) is
 * folded whatever its growth: the first search after an ingestion then opens current files. Long
 * enough that a client uploading in batches, waiting for each, does not get a fold between them.
 */
export const UPKEEP_QUIET_MS = 5_000;

/**
 * Keeps a large source's index files (its lexicon file, its vector generation) current while its
 * documents are ingested, in the process that ingests them, so that the first search after an
 * ingestion opens files instead of building them from every chunk (minutes at a million chunks)
 * and every process searching the source shares what one built. Called as each document becomes
 * READY; runs at most one upkeep per source at a time, another after it if documents became READY
 * meanwhile, and one more `quietMs` after the source's last READY document. What to write is
 * decided on the builder thread under the source's fold lock (FoldCondition): a first file once
 * the source reaches the file thresholds; a fold once new documents hold foldChunks chunks and
 * `growth` of what the files hold, or, after the quiet time, none of its documents is waiting. A
 * searching process that needs a fold meanwhile waits for this one on the same lock and finds
 * nothing left to fold. Its own builder pool: one thread, so folds never take the threads
 * ingestion embeds on.
 */
export class IndexFileUpkeep {
	/** Upkeeps run (each may write nothing) and failed; for operators and tests. */
	readonly statistics = { runs: 0, failures: 0 };
	private readonly running = new Map<string, { again: boolean; quiet: boolean; done: Promise<void> }>();
	/** Sources waiting for their quiet time: the timer, and the source to keep then. */
	private readonly quietTimers = new Map<string, { timer: NodeJS.Timeout; source: UpkeptSource }>();
	private closed = false;

	constructor(
		private readonly builders: IndexBuilderPool,
		private readonly settings: IndexFileUpkeepSettings,
	) {}

	documentReady(source: UpkeptSource): void {
		if (!this.settings.directory || this.closed) return;
		clearTimeout(this.quietTimers.get(source.id)?.timer);
		const timer = setTimeout(() => this.quietNow(source.id), this.settings.quietMs);
		timer.unref();
		this.quietTimers.set(source.id, { timer, source });
		this.keep(source, false);
	}

	/** Settles once no upkeep runs or waits for its quiet time (those waiting run now). */
	async settled(): Promise<void> {
		for (;;) {
			for (const sourceId of [...this.quietTimers.keys()]) this.quietNow(sourceId);
			if (this.running.size === 0) return;
			await Promise.all([...this.running.values()].map((state) => state.done));
		}
	}

	close(): Promise<void> {
		this.closed = true;
		for (const { timer } of this.quietTimers.values()) clearTimeout(timer);
		this.quietTimers.clear();
		return this.builders.close();
	}

	private quietNow(sourceId: string): void {
		const waiting = this.quietTimers.get(sourceId);
		if (!waiting) return;
		clearTimeout(waiting.timer);
		this.quietTimers.delete(sourceId);
		this.keep(waiting.source, true);
	}

	private keep(source: UpkeptSource, quiet: boolean): void {
		if (this.closed) return;
		const running = this.running.get(source.id);
		if (running) {
			running.again = true;
			running.quiet ||= quiet;
			return;
		}
		const state = { again: false, quiet, done: Promise.resolve() };
		state.done = this.keepCurrent(source, this.settings.directory as string, state).finally(() => this.running.delete(source.id));
		this.running.set(source.id, state);
	}

	private async keepCurrent(source: UpkeptSource, directory: string, state: { again: boolean; quiet: boolean }): Promise<void> {
		const { lexiconMinChunks, vectorMinChunks, foldChunks, growth } = this.settings;
		do {
			const orWhenQuiet = state.quiet;
			const condition = (minChunks: number): FoldCondition => ({ minChunks, minChangedChunks: foldChunks, growth, orWhenQuiet });
			state.again = false;
			state.quiet = false;
			try {
				await this.builders.run(source.workspace, { kind: "lexicon-file", sourceId: source.id, directory, condition: condition(lexiconMinChunks) });
				if (source.vectorsInChunkRows) {
					await this.builders.run(source.workspace, { kind: "vector-index", sourceId: source.id, directory, graph: source.denseQueries, condition: condition(vectorMinChunks) });
				}
				this.statistics.runs++;
			} catch {
				// The pool closed, the database away: the searching processes build what they need, as without upkeep.
				this.statistics.failures++;
				return;
			}
		} while (state.again);
	}
}
