import { afterAll, describe, expect, it } from "vitest";
import { PatternEngine } from "../../server/modules/evaluations/scorers/pattern-engine";
import { createLogger } from "../../server/shared/logger";

const engine = new PatternEngine(createLogger("silent"));
afterAll(() => engine.close());

/** Letters a and b in an order with no period (a fixed linear congruential sequence), so no cached state repeats. */
function irregular(length: number, seed: number): string {
	let state = seed;
	let text = "";
	for (let index = 0; index < length; index++) {
		state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
		text += state < 1_073_741_824 ? "a" : "b";
	}
	return text;
}

/**
 * A match at RE2's worst: a program of about 900 instructions whose states cannot be cached (an
 * `a` 901 characters before the end, in a text with no pattern), so every character steps through
 * hundreds of them: linear, but hundreds of milliseconds for 10,000 characters.
 */
const HEAVY = { pattern: "[ab]*a[ab]{900}c", text: `${irregular(10_000, 1)}a${irregular(900, 2)}c` };

describe("the pattern engine", () => {
	it("keeps the event loop free while heavy matches run, and serves workspaces in turn", async () => {
		let longestGapMs = 0;
		let last = performance.now();
		const ticker = setInterval(() => {
			const now = performance.now();
			longestGapMs = Math.max(longestGapMs, now - last);
			last = now;
		}, 5);
		const finished: string[] = [];
		const busy = Array.from({ length: 6 }, (_, index) => engine.test("workspace-a", HEAVY.pattern, "", HEAVY.text).then((outcome) => (finished.push(`a${index}`), outcome)));
		const other = engine.test("workspace-b", "^quick", "i", "Quick answer").then((outcome) => (finished.push("b"), outcome));
		const outcomes = await Promise.all([...busy, other]);
		clearInterval(ticker);

		expect(outcomes).toEqual([...busy.map(() => ({ matched: true })), { matched: true }]);
		// Workspace B's match waited for the one in progress and the one already next in line, not for all six.
		expect(finished.indexOf("b")).toBeLessThanOrEqual(2);
		expect(longestGapMs).toBeLessThan(250);
	}, 120_000);

	it("names what it cannot run: RE2's refusals, oversized programs and texts", async () => {
		expect(await engine.check("w", "(a)\\1", "")).toBe("Not a valid regular expression (RE2 syntax): invalid escape sequence: \\1");
		expect(await engine.check("w", "\\w{1000}", "")).toMatch(/^The pattern compiles to \d+ instructions; at most 1000 are allowed/);
		expect(await engine.check("w", "\\u0041\\u{1F600}[^]", "i")).toBeNull();
		expect(await engine.test("w", "a", "", "a".repeat(100_001))).toEqual({ problem: "The text is 100001 characters long; a pattern is matched against at most 100000" });
		// The bigger the program, the shorter the text it may read: at most about 20 million steps a match.
		expect(await engine.test("w", "[ab]*a[ab]{900}c", "", "ab".repeat(15_000))).toEqual({ problem: expect.stringMatching(/^This pattern compiles to 9\d\d instructions, so it is matched against at most 2\d{4} characters; the text has 30000$/) });
		// JavaScript's flags, as RE2's.
		expect(await engine.test("w", "^b$", "m", "a\nb\nc")).toEqual({ matched: true });
		expect(await engine.test("w", "a.c", "s", "a\nc")).toEqual({ matched: true });
		expect(await engine.test("w", "a.c", "", "a\nc")).toEqual({ matched: false });
		expect(await engine.test("w", "HELLO", "i", "well, hello")).toEqual({ matched: true });
	});
});
