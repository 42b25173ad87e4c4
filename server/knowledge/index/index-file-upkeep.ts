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
	/** How long after a source's last READY document its files are brought up to date, if none of its documents is waiting then. */
	quietMs: number;
}

/**
 * Long enough that a client uploading in batches, waiting for each, does not get a fold between
 * them; short beside what a fold of a large source takes.
 */
export const UPKEEP_QUIET_MS = 5_000;

/**
 * Brings a large source's index files (its lexicon file, its vector generation) up to date once an
 * ingestion into it has ended, in the process that ingested it: so a search that comes after opens
 * current files instead of building them from every chunk (minutes at a million chunks), and every
 * process searching the source on this machine shares what one built. `quietMs` after a source's
 * last READY document, if none of its documents is waiting then (FoldCondition.whenQuiet), a first
 * file once the source reaches the file thresholds, or a fold once the documents new since hold
 * foldChunks chunks; decided on a builder thread under the source's fold lock. Not during the
 * ingestion: a lexicon fold copies and re-inverts the whole file, as long as a build from the rows
 * at a million chunks, and folding as a source grew by half (measured: three times a build's work
 * in all) slowed a 1M ingestion from 2.36 to 1.57 MB/s on two cores and made the first search
 * after it no faster (it then folded what had come since). A search during an ingestion, or right
 * after it, builds or folds as before; the upkeep, waiting on the same lock, then finds nothing
 * left to do. Its own builder pool: one thread, never the threads ingestion embeds on.
 */
export class IndexFileUpkeep {
	/** Upkeeps run (each may write nothing) and failed; for operators and tests. */
	readonly statistics = { runs: 0, failures: 0 };
	/** Sources waiting for their quiet time: the timer, and the source to keep then. */
	private readonly waiting = new Map<string, { timer: NodeJS.Timeout; source: UpkeptSource }>();
	private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();
	private closed = false;

	constructor(
		private readonly builders: IndexBuilderPool,
		private readonly settings: IndexFileUpkeepSettings,
	) {}

	/** A document of `source` became READY: its upkeep waits for the quiet time again. */
	documentReady(source: UpkeptSource): void {
		if (!this.settings.directory || this.closed) return;
		clearTimeout(this.waiting.get(source.id)?.timer);
		const timer = setTimeout(() => this.keepNow(source.id), this.settings.quietMs);
		timer.unref();
		this.waiting.set(source.id, { timer, source });
	}

	/** Runs the upkeeps waiting for their quiet time now, and settles once none runs. */
	async settled(): Promise<void> {
		for (;;) {
			for (const sourceId of [...this.waiting.keys()]) this.keepNow(sourceId);
			if (this.running.size === 0) return;
			await Promise.all([...this.running.values()].map((state) => state.done));
		}
	}

	close(): Promise<void> {
		this.closed = true;
		for (const { timer } of this.waiting.values()) clearTimeout(timer);
		this.waiting.clear();
		return this.builders.close();
	}

	private keepNow(sourceId: string): void {
		const waiting = this.waiting.get(sourceId);
		if (!waiting || this.closed) return;
		clearTimeout(waiting.timer);
		this.waiting.delete(sourceId);
		const running = this.running.get(sourceId);
		if (running) {
			running.again = true;
			return;
		}
		const state = { again: false, done: Promise.resolve() };
		state.done = this.keepCurrent(waiting.source, this.settings.directory as string, state).finally(() => this.running.delete(sourceId));
		this.running.set(sourceId, state);
	}

	private async keepCurrent(source: UpkeptSource, directory: string, state: { again: boolean }): Promise<void> {
		const { lexiconMinChunks, vectorMinChunks, foldChunks } = this.settings;
		const condition = (minChunks: number): FoldCondition => ({ minChunks, minChangedChunks: foldChunks, whenQuiet: true });
		do {
			state.again = false;
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
