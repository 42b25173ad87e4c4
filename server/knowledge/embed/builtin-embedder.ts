import type { IndexBuilderPool } from "../index/index-builder-pool";
import { type Embedder, l2Normalize } from "./embedder";

export const BUILTIN_DIMENSIONS = 512;

/** Longest stretch of embedding between two turns of the event loop. */
const EMBED_SLICE_MS = 10;

/**
 * Texts per index-builder task: a few hundred milliseconds of a thread, so a search's load of the
 * same workspace queued behind an ingestion waits for one batch, not a whole document.
 */
const THREAD_BATCH_TEXTS = 128;

/** Up to this many characters (a search's query, a few short chunks) are embedded where they are asked for: a thread's round trip would cost more. */
const INLINE_CHARACTERS = 16 * 1024;

/** Words that carry no topic; hashing them would only add noise to every vector. */
const STOP_WORDS: ReadonlySet<string> = new Set(
	"a an and are as at be but by for from has have he her his i if in into is it its of on or our she so that the their them there these they this to was we were what when where which who will with you your not no do does did can could would should may might been being than then also about over under how".split(
		" ",
	),
);

/** FNV-1a, 32 bits: fast, stable across processes and versions (vectors are stored). */
function hash(text: string): number {
	let value = 0x811c9dc5;
	for (let index = 0; index < text.length; index++) {
		value ^= text.charCodeAt(index);
		value = Math.imul(value, 0x01000193);
	}
	return value >>> 0;
}

/** Cheap suffix stripping so `parse`, `parses` and `parsing` share features. */
function stem(word: string): string {
	if (word.length <= 4) return word;
	for (const suffix of ["ations", "ation", "ings", "ing", "edly", "ies", "ied", "es", "ed", "ly", "s"]) {
		if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
	}
	return word;
}

export function tokenize(text: string): string[] {
	return (text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.has(word)).map(stem);
}

/**
 * builtin-hash-v1: feature hashing of word unigrams (weight 1), word bigrams (0.5) and character
 * trigrams of each word (0.25, for spelling variants) into 512 signed buckets, with sublinear term
 * frequency (1 + ln tf) and L2 normalisation, so a dot product is a cosine.
 *
 * Honest quality note: this is a lexical model. It matches shared words and close spellings, not
 * meaning (no synonyms, no paraphrase, no cross-language), and 512 buckets collide on large
 * vocabularies. It is a working default that needs no network or credential; use a provider model
 * for semantic retrieval. Changing anything here changes the vector space: it would need a new
 * model name (builtin-hash-v2), never an edit of v1.
 */
export class BuiltinEmbedder implements Embedder {
	readonly name = "builtin/builtin-hash-v1";

	/**
	 * `threads`: where a document's chunks are embedded, as tasks of `workspace` (its share of the
	 * threads). A megabyte of text is hundreds of milliseconds of CPU and a feature map per chunk:
	 * on the API's event loop, even in yielding slices, that work and its garbage collection were
	 * the largest share of the loop's time while documents were ingested, shared with every request.
	 */
	constructor(private readonly threads?: { pool: IndexBuilderPool; workspace: string }) {}

	async embed(texts: string[]): Promise<Float32Array[]> {
		let characters = 0;
		for (const text of texts) characters += text.length;
		if (!this.threads || characters <= INLINE_CHARACTERS) return embedInSlices(texts);
		const { pool, workspace } = this.threads;
		const vectors: Float32Array[] = [];
		for (let start = 0; start < texts.length; start += THREAD_BATCH_TEXTS) {
			const batch = await pool.run(workspace, { kind: "embed-builtin", texts: texts.slice(start, start + THREAD_BATCH_TEXTS) });
			for (let offset = 0; offset < batch.length; offset += BUILTIN_DIMENSIONS) vectors.push(batch.subarray(offset, offset + BUILTIN_DIMENSIONS));
		}
		return vectors;
	}
}

/**
 * On the caller's event loop, yielding every few milliseconds: for few texts, or where there are
 * no threads (scripts, tests of the embedder itself).
 */
async function embedInSlices(texts: string[]): Promise<Float32Array[]> {
	const vectors: Float32Array[] = [];
	let sliceStarted = performance.now();
	for (const text of texts) {
		vectors.push(embedBuiltin(text));
		if (performance.now() - sliceStarted > EMBED_SLICE_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			sliceStarted = performance.now();
		}
	}
	return vectors;
}

export function embedBuiltin(text: string): Float32Array {
	const counts = new Map<string, { weight: number; frequency: number }>();
	const add = (feature: string, weight: number) => {
		const entry = counts.get(feature);
		if (entry) entry.frequency += 1;
		else counts.set(feature, { weight, frequency: 1 });
	};
	const words = tokenize(text);
	for (let index = 0; index < words.length; index++) {
		const word = words[index];
		add(`w:${word}`, 1);
		if (index > 0) add(`b:${words[index - 1]} ${word}`, 0.5);
		const padded = `^${word}$`;
		for (let start = 0; start + 3 <= padded.length; start++) add(`c:${padded.slice(start, start + 3)}`, 0.25);
	}
	const vector = new Float32Array(BUILTIN_DIMENSIONS);
	for (const [feature, { weight, frequency }] of counts) {
		const value = hash(feature);
		const bucket = value % BUILTIN_DIMENSIONS;
		// The sign bit spreads collisions around zero instead of letting them pile up.
		const sign = value & 0x80000000 ? -1 : 1;
		vector[bucket] += sign * weight * (1 + Math.log(frequency));
	}
	return l2Normalize(vector);
}
