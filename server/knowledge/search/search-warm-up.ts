import type { SourceLexicon } from "../index/lexical-index";

/** Searches the warm-up runs. */
export const WARM_UP_SEARCHES = 40;

/**
 * Warms search's code, once per process, after the first search of a large source. V8 optimizes a
 * function only after running it a while, so a process's first few dozen searches run partly
 * unoptimized: in process, the scale bench's first 10 queries ranked in 58 ms at 100k chunks
 * against 10 ms for the same queries once warm (94 against 31 at 1M), and through the API the
 * first searches after a start were the slowest of a run, the vector half's scan and the database
 * round trips cold too. Here, once a search has loaded a lexicon of `minChunks` or more
 * (KNOWLEDGE_SEARCH_WARM_UP_MIN_CHUNKS: smaller sources search in a few milliseconds even cold),
 * WARM_UP_SEARCHES searches of that source for two or three of its own words
 * (SourceLexicon.sampleQueries) run in the background, one after another, through the same code
 * as a search (ranked in the same slices of the event loop, taking turns with searches), results
 * discarded. It also brings their lists into the page cache. Only sources whose searches stay on
 * this machine are warmed with (builtin embeddings, vectors in PostgreSQL): a provider's embeddings
 * or Pinecone's queries are not spent on warming code.
 */
export class SearchWarmUp {
	/** Warm-up searches run so far (for tests and operators). */
	searches = 0;
	private running: Promise<void> | null = null;

	constructor(private readonly minChunks: number) {}

	/**
	 * Starts the warm-up in the background, searching with `search` for words of `lexicon`, unless
	 * one ran or runs already or the lexicon is small.
	 */
	offer(lexicon: SourceLexicon, search: (words: string[]) => Promise<unknown>): void {
		if (this.running || lexicon.size < this.minChunks) return;
		this.running = this.run(lexicon, search);
	}

	/** Settles when the warm-up is over (at once if none started). */
	finished(): Promise<void> {
		return this.running ?? Promise.resolve();
	}

	private async run(lexicon: SourceLexicon, search: (words: string[]) => Promise<unknown>): Promise<void> {
		for (const query of lexicon.sampleQueries(WARM_UP_SEARCHES)) {
			// A search that fails (the source deleted meanwhile, the database away) ends the warm-up: the searches that follow warm the code themselves.
			const searched = await search([...query.keys()]).then(
				() => true,
				() => false,
			);
			if (!searched) return;
			this.searches++;
		}
	}
}
