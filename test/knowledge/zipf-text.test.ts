import { describe, expect, it } from "vitest";
import { generatedWords, seededRandom, zipfRanks } from "../helpers/zipf-text";

// The knowledge benchmarks' figures are only worth what their generated corpus is: text that does not repeat.
describe("the benchmarks' seeded text", () => {
	it("draws a million values without falling into a short cycle", () => {
		const random = seededRandom(20_261_126);
		const seen = new Set<number>();
		for (let draw = 0; draw < 1_000_000; draw++) seen.add(random());
		// 32-bit values: a million draws share a few hundred by chance (birthday), not 99%.
		expect(seen.size).toBeGreaterThan(999_000);
	});

	it("gives different seeds different runs and the same seed the same run", () => {
		const run = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
		expect(run(7)).toEqual(run(7));
		expect(run(7)).not.toEqual(run(8));
		for (const value of run(1)) expect(value >= 0 && value < 1).toBe(true);
	});

	it("writes megabytes of Zipf text whose passages do not recur and whose vocabulary keeps growing", () => {
		const random = seededRandom(20_261_126);
		const words = generatedWords(50_000);
		const drawRank = zipfRanks(50_000);
		const sentences: string[] = [];
		for (let length = 0; length < 3_000_000; ) {
			const sentence = `${Array.from({ length: 8 + Math.floor(random() * 14) }, () => words[drawRank(random)]).join(" ")}.`;
			sentences.push(sentence);
			length += sentence.length + 1;
		}
		const text = sentences.join(" ");
		for (const at of [10_000, 500_000, 1_500_000, 2_900_000]) {
			const passage = text.slice(at, at + 80);
			expect(text.indexOf(passage, at + 1)).toBe(-1);
			expect(text.indexOf(passage)).toBe(at);
		}
		const vocabularyOf = (part: string) => new Set(part.split(/[ .]+/)).size;
		// Heaps' law: the second half brings words the first did not hold (a text that repeats brings none).
		expect(vocabularyOf(text)).toBeGreaterThan(vocabularyOf(text.slice(0, text.length / 2)) * 1.1);
	});
});
