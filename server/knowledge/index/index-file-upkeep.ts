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
}

/**
 * While an ingestion grows a source by less than this share of what its files hold, they are left
 * as they are unless none of its documents is waiting: each lexicon fold copies the whole file, so
 * folding at every foldChunks would copy a source growing to a million chunks hundreds of times;
 * folding as it doubles copies each chunk about twice, and the fold when the ingestion ends leaves
 * the first search after it nothing large to fold.
 */
export const UPKEEP_GROWTH = 0.5;

/**
 * Keeps a large source's index files (its lexicon file, its vector generation) current while its
 * documents are ingested, in the process that ingests them, so that the first search after an
 * ingestion opens files instead of building them from every chunk (minutes at a million chunks)
 * and every process searching the source shares what one built. Called as each document becomes
 * READY; runs at most one upkeep per source at a time, another after it if documents became READY
 * meanwhile. What to write is decided on the builder thread under the source's fold lock
 * (FoldCondition): a first file once the source reaches the file thresholds, a fold once new
 * documents hold foldChunks chunks and half again what the files hold or none are waiting. A
 * searching process that needs a fold meanwhile waits for this one on the same lock and finds
 * nothing left to fold. Its own builder pool: one thread, so folds never take the threads ingestion
 * embeds on.
 */
export class IndexFileUpkeep {
	/** Upkeeps run (each may write nothing) and failed; for operators and tests. */
	readonly statistics = { runs: 0, failures: 0 };
	private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

	constructor(
		private readonly builders: IndexBuilderPool,
		private readonly settings: IndexFileUpkeepSettings,
	) {}

	documentReady(source: UpkeptSource): void {
		if (!this.settings.directory) return;
		const running = this.running.get(source.id);
		if (running) {
			running.again = true;
			return;
		}
		const state = { again: false, done: Promise.resolve() };
		state.done = this.keepCurrent(source, this.settings.directory, state).finally(() => this.running.delete(source.id));
		this.running.set(source.id, state);
	}

	/** Settles once no upkeep runs. */
	async settled(): Promise<void> {
		while (this.running.size > 0) await Promise.all([...this.running.values()].map((state) => state.done));
	}

	close(): Promise<void> {
		return this.builders.close();
	}

	private async keepCurrent(source: UpkeptSource, directory: string, state: { again: boolean }): Promise<void> {
		const { lexiconMinChunks, vectorMinChunks, foldChunks } = this.settings;
		const condition = (minChunks: number): FoldCondition => ({ minChunks, minChangedChunks: foldChunks, growth: UPKEEP_GROWTH });
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
