/**
 * Seeded generated text for the knowledge benchmarks: words ranked by a Zipf law (s = 1), so
 * postings look like a language's (a few very common words, a long tail of rare ones).
 */

/**
 * A seeded generator (mulberry32: a 32-bit state stepped by an odd constant, so its period is 2^32
 * draws), the same run on every machine. It replaced an LCG computed in floating point, whose
 * product lost its low bits past 2^53: every seed fell into one cycle of 10,466 draws, so the
 * benchmarks' "million chunks" repeated about 40 KB of text.
 */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let mixed = state;
		mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
		mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
		return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
	};
}

/**
 * Draws word ranks (0 = most common) of a `vocabulary`-word Zipf law with `random`: the smallest
 * rank whose cumulative weight reaches the draw. A guide table (the first rank of each of 65,536
 * equal slices of the total weight) narrows the search to the draw's slice, which gives the same
 * rank as a search of the whole table, in a few steps instead of sixteen (a benchmark's client
 * draws millions of words).
 */
export function zipfRanks(vocabulary: number): (random: () => number) => number {
	const cumulative = new Float64Array(vocabulary);
	for (let rank = 0, sum = 0; rank < vocabulary; rank++) cumulative[rank] = sum += 1 / (rank + 1);
	const total = cumulative[vocabulary - 1];
	const slices = 65_536;
	const firstOfSlice = new Int32Array(slices + 1);
	for (let slice = 0, rank = 0; slice <= slices; slice++) {
		while (rank < vocabulary - 1 && cumulative[rank] < (slice * total) / slices) rank++;
		firstOfSlice[slice] = rank;
	}
	return (random) => {
		const target = random() * total;
		const slice = Math.min(slices - 1, Math.floor((target * slices) / total));
		let low = firstOfSlice[slice];
		let high = firstOfSlice[slice + 1];
		// Rounding at a slice's edge: the whole table, as before.
		if ((low > 0 && cumulative[low - 1] >= target) || cumulative[high] < target) {
			low = 0;
			high = vocabulary - 1;
		}
		while (low < high) {
			const middle = (low + high) >> 1;
			if (cumulative[middle] < target) low = middle + 1;
			else high = middle;
		}
		return low;
	};
}

/** Pronounceable-ish distinct letter strings, one per rank. */
export function generatedWords(vocabulary: number): string[] {
	const letters = "abcdefghijklmnopqrstuvwxyz";
	return Array.from({ length: vocabulary }, (_, rank) => {
		let word = "";
		for (let value = rank + 26 * 26; value > 0; value = Math.floor(value / 26)) word += letters[value % 26];
		return `${word}${letters[rank % 7]}`;
	});
}
