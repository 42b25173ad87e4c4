import type { SourceLexicon } from "../index/lexical-index";
import { rankLexicallyInSlices } from "./rank-lexically";

/** Lexicons smaller than this rank in a millisecond or two even with cold code: no warm-up for them. */
export const WARM_UP_MIN_CHUNKS = 20_000;

/** Rankings the warm-up runs (each both passes of BM25 + RM3). */
export const WARM_UP_RANKINGS = 60;

/**
 * Warms the lexical ranking's code, once per process, after the first search of a large source.
 * V8 optimizes a function only after running it a while, so a process's first few dozen rankings
 * run partly unoptimized: in process, the scale bench's first 10 queries took 58 ms at 100k chunks
 * against 10 ms for the same queries once warm (94 against 31 at 1M), and through the API the
 * first searches after a start were the slowest of a run. With this warm-up first (134 ms at 100k,
 * 267 ms at 1M), 22 and 32 ms. Here, once a search has loaded a lexicon of
 * WARM_UP_MIN_CHUNKS or more, that lexicon ranks WARM_UP_RANKINGS queries of its own words
 * (SourceLexicon.sampleQueries), one after another, in the same slices of the event loop as a
 * search and taking turns with searches, results discarded. It also brings their lists into the
 * page cache. A few hundred milliseconds of the API's thread at a million chunks, in slices, once.
 */
export class RankingWarmUp {
	/** Rankings run so far (for tests and operators). */
	rankings = 0;
	private running: Promise<void> | null = null;

	constructor(private readonly minChunks = WARM_UP_MIN_CHUNKS) {}

	/** Starts the warm-up on `lexicon` in the background, unless one ran or runs already or the lexicon is small. */
	offer(lexicon: SourceLexicon): void {
		if (this.running || lexicon.size < this.minChunks) return;
		this.running = this.run(lexicon);
	}

	/** Settles when the warm-up is over (at once if none started). */
	finished(): Promise<void> {
		return this.running ?? Promise.resolve();
	}

	private async run(lexicon: SourceLexicon): Promise<void> {
		for (const query of lexicon.sampleQueries(WARM_UP_RANKINGS)) {
			// A ranking that fails warms nothing more: the searches that follow warm the code themselves.
			const ranked = await rankLexicallyInSlices(lexicon, query, 50).then(
				() => true,
				() => false,
			);
			if (!ranked) return;
			this.rankings++;
		}
	}
}
