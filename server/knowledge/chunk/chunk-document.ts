import type { ChunkLocation } from "../../db/entities";
import type { ParsedDocument, TextBlock } from "../parse/parsed-document";

export interface Chunk {
	text: string;
	tokenCount: number;
	location: ChunkLocation;
}

export interface ChunkingOptions {
	targetTokens: number;
	overlapTokens: number;
}

/** ~400 tokens keeps a chunk one topic and well inside every embedding model's input limit. */
export const DEFAULT_CHUNKING: ChunkingOptions = { targetTokens: 400, overlapTokens: 60 };

/** Whitespace as `\s` sees it, tested by character code (no regular expression per call). */
function isWhitespace(code: number): boolean {
	return (
		code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
	);
}

/** Runs of non-whitespace, counted in one pass. */
export function countWords(text: string): number {
	let words = 0;
	let inWord = false;
	for (let index = 0; index < text.length; index++) {
		const whitespace = isWhitespace(text.charCodeAt(index));
		if (!whitespace && !inWord) words++;
		inWord = !whitespace;
	}
	return words;
}

/**
 * Token estimate without a tokenizer: about four characters per token for English (OpenAI's own
 * rule of thumb); words count as at least one each so short-word text is not under-counted.
 */
export function estimateTokens(text: string): number {
	return tokensOf(countWords(text), text.length);
}

function tokensOf(words: number, characters: number): number {
	return Math.max(words, Math.ceil(characters / 4));
}

/**
 * Pieces joined by single spaces, with the joined text's token estimate kept as running word and
 * character counts: a piece never merges words with its neighbours (each is trimmed or starts with
 * a newline), so the estimate of the join is exact without ever re-joining (the re-join per piece
 * made chunking quadratic in the chunk size).
 */
class JoinedPieces {
	pieces: string[] = [];
	private words = 0;
	private characters = 0;

	tokensWith(piece: string, pieceWords: number): number {
		if (this.pieces.length === 0) return tokensOf(pieceWords, piece.length);
		return tokensOf(this.words + pieceWords, this.characters + 1 + piece.length);
	}

	push(piece: string, pieceWords: number): void {
		this.characters += (this.pieces.length ? 1 : 0) + piece.length;
		this.words += pieceWords;
		this.pieces.push(piece);
	}

	reset(pieces: string[] = []): void {
		this.pieces = [];
		this.words = 0;
		this.characters = 0;
		for (const piece of pieces) this.push(piece, countWords(piece));
	}
}

/** Sentences (or lines), and words for a sentence longer than a chunk. */
function units(text: string, targetTokens: number): string[] {
	const result: string[] = [];
	const maxWordLength = targetTokens * 4;
	for (const piece of splitSentences(text)) {
		const pieceWords = countWords(piece);
		if (tokensOf(pieceWords, piece.length) <= targetTokens) {
			result.push(piece);
			continue;
		}
		const current = new JoinedPieces();
		const add = (part: string) => {
			if (current.pieces.length && current.tokensWith(part, 1) > targetTokens) {
				result.push(current.pieces.join(" "));
				current.reset();
			}
			current.push(part, 1);
		};
		for (const word of splitWords(piece)) {
			// A single "word" longer than a chunk (base64, minified code) is cut by characters.
			if (word.length <= maxWordLength) add(word);
			else for (let start = 0; start < word.length; start += maxWordLength) add(word.slice(start, start + maxWordLength));
		}
		if (current.pieces.length) result.push(current.pieces.join(" "));
	}
	return result;
}

/**
 * Trimmed sentences: a cut after `.`, `!` or `?` followed by whitespace, and at every newline.
 * One pass over the text by character code.
 */
function splitSentences(text: string): string[] {
	const pieces: string[] = [];
	let start = 0;
	const cut = (end: number) => {
		const piece = text.slice(start, end).trim();
		if (piece) pieces.push(piece);
	};
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code === 0x0a) {
			cut(index);
			start = index + 1;
		} else if ((code === 0x2e || code === 0x21 || code === 0x3f) && index + 1 < text.length && isWhitespace(text.charCodeAt(index + 1))) {
			cut(index + 1);
			start = index + 1;
		}
	}
	cut(text.length);
	return pieces;
}

function splitWords(text: string): string[] {
	const words: string[] = [];
	let start = -1;
	for (let index = 0; index <= text.length; index++) {
		const whitespace = index === text.length || isWhitespace(text.charCodeAt(index));
		if (whitespace && start >= 0) {
			words.push(text.slice(start, index));
			start = -1;
		} else if (!whitespace && start < 0) start = index;
	}
	return words;
}

/** Same page and heading path; titles compared by reference first (blocks of one section share them). */
function sameSection(left: TextBlock, right: TextBlock): boolean {
	if (left.page !== right.page) return false;
	const leftPath = left.headingPath ?? [];
	const rightPath = right.headingPath ?? [];
	return leftPath === rightPath || (leftPath.length === rightPath.length && leftPath.every((title, index) => title === rightPath[index]));
}

function locationOf(block: TextBlock): ChunkLocation {
	const location: ChunkLocation = {};
	if (block.page !== undefined) location.page = block.page;
	if (block.headingPath?.length) location.headingPath = block.headingPath;
	if (block.rowRange) location.rowRange = block.rowRange;
	return location;
}

/**
 * Structure-aware packing: a chunk never spans two pages, two heading sections or two CSV row
 * groups, so its location is exact. Within a section, sentences are packed up to the target and
 * the next chunk repeats the last ~overlap tokens so a fact cut at a boundary is whole in one chunk.
 * `onChunk` sees each chunk as it is made (a budget can stop a runaway document early).
 */
export function chunkDocument(document: ParsedDocument, options: ChunkingOptions = DEFAULT_CHUNKING, onChunk?: (chunk: Chunk) => void): Chunk[] {
	const sections: TextBlock[][] = [];
	let previous: TextBlock | null = null;
	for (const block of document.blocks) {
		if (block.standalone || !previous || !sameSection(block, previous) || previous.standalone) sections.push([]);
		sections[sections.length - 1].push(block);
		previous = block;
	}
	const chunks: Chunk[] = [];
	for (const section of sections) {
		const location = locationOf(section[0]);
		const current = new JoinedPieces();
		const emit = () => {
			const text = current.pieces.join(" ").replace(/ \n/g, "\n").trim();
			if (!text) return;
			const chunk = { text, tokenCount: estimateTokens(text), location };
			onChunk?.(chunk);
			chunks.push(chunk);
		};
		for (const block of section) {
			units(block.text, options.targetTokens).forEach((unit, index) => {
				// Blocks (paragraphs, headings, rows) start a new line; sentences of one block read on.
				const sentence = index === 0 || block.standalone ? `\n${unit}` : unit;
				const sentenceWords = countWords(sentence);
				// Measured on the joined text: separators count too, so a chunk never exceeds the target.
				if (current.pieces.length && current.tokensWith(sentence, sentenceWords) > options.targetTokens) {
					emit();
					const overlap: string[] = [];
					let overlapTokens = 0;
					for (let position = current.pieces.length - 1; position >= 0; position--) {
						const size = estimateTokens(current.pieces[position]);
						if (overlapTokens + size > options.overlapTokens) break;
						overlap.unshift(current.pieces[position]);
						overlapTokens += size;
					}
					current.reset(overlap);
				}
				current.push(sentence, sentenceWords);
			});
		}
		emit();
	}
	return chunks;
}
