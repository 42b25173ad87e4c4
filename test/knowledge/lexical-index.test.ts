import { describe, expect, it } from "vitest";
import { parseTsvector } from "../../server/knowledge/index/lexical-index";

const parse = (text: string) => {
	const lexemes: [string, number][] = [];
	parseTsvector(text, (lexeme, frequency) => lexemes.push([lexeme, frequency]));
	return lexemes;
};

describe("tsvector parsing for the BM25 index", () => {
	it("counts each lexeme's positions, weights included", () => {
		expect(parse("'lighthous':2,7B 'quartz':1 'seventeen':4A,9,12")).toEqual([
			["lighthous", 2],
			["quartz", 1],
			["seventeen", 3],
		]);
	});

	it("unescapes doubled quotes and backslashes, and counts a stripped lexeme once", () => {
		expect(parse("'o''brien':3 'a\\\\b' 'plain'")).toEqual([
			["o'brien", 1],
			["a\\b", 1],
			["plain", 1],
		]);
	});

	it("reads nothing from an empty tsvector", () => {
		expect(parse("")).toEqual([]);
	});
});
