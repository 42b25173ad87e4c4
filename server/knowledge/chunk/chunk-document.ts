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

/**
 * Token estimate without a tokenizer: about four characters per token for English (OpenAI's own
 * rule of thumb); words count as at least one each so short-word text is not under-counted.
 */
export function estimateTokens(text: string): number {
	const words = text.match(/\S+/g)?.length ?? 0;
	return Math.max(words, Math.ceil(text.length / 4));
}

/** Sentences (or lines), and words for a sentence longer than a chunk. */
function units(text: string, targetTokens: number): string[] {
	const pieces = text.split(/(?<=[.!?])\s+|\n+/).filter((piece) => piece.trim());
	const result: string[] = [];
	for (const piece of pieces) {
		if (estimateTokens(piece) <= targetTokens) {
			result.push(piece.trim());
			continue;
		}
		const words = piece.split(/\s+/).filter(Boolean);
		let current: string[] = [];
		for (const word of words) {
			// A single "word" longer than a chunk (base64, minified code) is cut by characters.
			const parts = word.length > targetTokens * 4 ? (word.match(new RegExp(`.{1,${targetTokens * 4}}`, "g")) ?? [word]) : [word];
			for (const part of parts) {
				if (current.length && estimateTokens([...current, part].join(" ")) > targetTokens) {
					result.push(current.join(" "));
					current = [];
				}
				current.push(part);
			}
		}
		if (current.length) result.push(current.join(" "));
	}
	return result;
}

function sectionKey(block: TextBlock): string {
	return JSON.stringify([block.page ?? null, block.headingPath ?? null]);
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
 */
export function chunkDocument(document: ParsedDocument, options: ChunkingOptions = DEFAULT_CHUNKING): Chunk[] {
	const sections: TextBlock[][] = [];
	let previousKey: string | null = null;
	for (const block of document.blocks) {
		const key = sectionKey(block);
		if (block.standalone || key !== previousKey || sections[sections.length - 1]?.[0]?.standalone) sections.push([]);
		sections[sections.length - 1].push(block);
		previousKey = key;
	}
	const chunks: Chunk[] = [];
	for (const section of sections) {
		const location = locationOf(section[0]);
		// Blocks (paragraphs, headings, rows) start a new line; sentences of one block read on.
		const sentences = section.flatMap((block) =>
			units(block.text, options.targetTokens).map((text, index) => (index === 0 || block.standalone ? `\n${text}` : text)),
		);
		let current: string[] = [];
		const emit = () => {
			const text = current.join(" ").replace(/ \n/g, "\n").trim();
			if (text) chunks.push({ text, tokenCount: estimateTokens(text), location });
		};
		for (const sentence of sentences) {
			// Measured on the joined text: separators count too, so a chunk never exceeds the target.
			if (current.length && estimateTokens([...current, sentence].join(" ")) > options.targetTokens) {
				emit();
				const overlap: string[] = [];
				let overlapTokens = 0;
				for (let index = current.length - 1; index >= 0; index--) {
					const size = estimateTokens(current[index]);
					if (overlapTokens + size > options.overlapTokens) break;
					overlap.unshift(current[index]);
					overlapTokens += size;
				}
				current = overlap;
			}
			current.push(sentence);
		}
		emit();
	}
	return chunks;
}
