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

/** Draws word ranks (0 = most common) of a `vocabulary`-word Zipf law with `random`. */
export function zipfRanks(vocabulary: number): (random: () => number) => number {
	const cumulative = new Float64Array(vocabulary);
	for (let rank = 0, sum = 0; rank < vocabulary; rank++) cumulative[rank] = sum += 1 / (rank + 1);
	return (random) => {
		const target = random() * cumulative[vocabulary - 1];
		let low = 0;
		let high = vocabulary - 1;
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
