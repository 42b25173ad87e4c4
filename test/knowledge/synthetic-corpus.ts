import pg from "pg";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { l2Normalize } from "../../server/knowledge/embed/embedder";
import { encodeVector } from "../../server/knowledge/index/vector-encoding";
import { newId } from "../../server/shared/ids";

/**
 * A large knowledge source written straight into PostgreSQL, for tests about size rather than
 * ingestion: READY documents and their chunk rows as ingestion leaves them (text, location, builtin
 * vector; PostgreSQL computes `search_vector`). Words follow a Zipf-like law over a 3,000-word
 * vocabulary (bench/knowledge.ts's generator); chunks are drawn from a pool of sentences embedded
 * once each, so a chunk's vector is the normalised sum of its sentences' (embedding 50,000 texts of
 * a kilobyte and more one by one would take most of a test's time). Deterministic for a seed.
 */
export interface SyntheticCorpus {
	documentIds: string[];
	chunks: number;
	/** Characters of chunk text written. */
	characters: number;
	/** A word of the vocabulary by rank (0 = most frequent), to build queries from. */
	word(rank: number): string;
}

export async function insertSyntheticCorpus(
	databaseUrl: string,
	target: { workspaceId: string; sourceId: string },
	options: { chunks: number; chunksPerDocument?: number; sentencesPerChunk?: number; seed?: number; analyze?: boolean },
): Promise<SyntheticCorpus> {
	const chunksPerDocument = options.chunksPerDocument ?? 1000;
	const sentencesPerChunk = options.sentencesPerChunk ?? 12;
	let seed = options.seed ?? 42;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2 ** 31;
		return seed / 2 ** 31;
	};
	const words = Array.from({ length: 3000 }, (_, index) => `w${index.toString(36)}x${(index * 7919) % 997}`);
	const zipfWord = () => words[Math.floor(words.length * random() ** 3)];
	const sentences = Array.from({ length: 4000 }, () => `${Array.from({ length: 8 + Math.floor(random() * 12) }, zipfWord).join(" ")}.`);
	const sentenceVectors = sentences.map((sentence) => embedBuiltin(sentence));

	const documentIds: string[] = [];
	let characters = 0;
	const batches: { documentId: string; count: number; filename: string }[] = [];
	for (let first = 0; first < options.chunks; first += chunksPerDocument) {
		const documentId = newId("doc");
		documentIds.push(documentId);
		batches.push({ documentId, count: Math.min(chunksPerDocument, options.chunks - first), filename: `synthetic-${documentIds.length}.txt` });
	}
	// Two connections: PostgreSQL computes each row's tsvector and index entries, the dominant cost.
	const writer = async (share: typeof batches) => {
		const client = new pg.Client({ connectionString: databaseUrl });
		await client.connect();
		try {
		for (const { documentId, count, filename } of share) {
			await client.query(
				`insert into knowledge_documents (id, workspace_id, source_id, filename, content_type, byte_size, storage_key, status, chunk_count, attempts, processed_at, created_at, updated_at)
				 values ($1, $2, $3, $4, 'text/plain', 0, 'none', 'READY', $5, 1, now(), now(), now())`,
				[documentId, target.workspaceId, target.sourceId, filename, count],
			);
			// unnest over arrays: one statement per 500 rows without thousands of placeholders.
			for (let start = 0; start < count; start += 500) {
				const ids: string[] = [];
				const ordinals: number[] = [];
				const texts: string[] = [];
				const locations: string[] = [];
				const embeddings: Buffer[] = [];
				for (let ordinal = start; ordinal < Math.min(count, start + 500); ordinal++) {
					const vector = new Float32Array(sentenceVectors[0].length);
					const picked: string[] = [];
					for (let index = 0; index < sentencesPerChunk; index++) {
						const sentence = Math.floor(random() * sentences.length);
						picked.push(sentences[sentence]);
						for (let dimension = 0; dimension < vector.length; dimension++) vector[dimension] += sentenceVectors[sentence][dimension];
					}
					const text = picked.join(" ");
					characters += text.length;
					ids.push(newId("chk"));
					ordinals.push(ordinal);
					texts.push(text);
					// Every tenth chunk sits under a heading, so the heading field is loaded too.
					locations.push(JSON.stringify(ordinal % 10 === 0 ? { headingPath: [`Part ${zipfWord()}`, zipfWord()] } : {}));
					embeddings.push(encodeVector(l2Normalize(vector)));
				}
				await client.query(
					`insert into knowledge_chunks (id, workspace_id, source_id, document_id, ordinal, text, token_count, location, embedding, created_at)
					 select v.id, $1, $2, $3, v.ordinal, v.text, 300, v.location::jsonb, v.embedding, now()
					 from unnest($4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[]) as v(id, ordinal, text, location, embedding)`,
					[target.workspaceId, target.sourceId, documentId, ids, ordinals, texts, locations, embeddings],
				);
			}
		}
		} finally {
			await client.end();
		}
	};
	await Promise.all([writer(batches.filter((_, index) => index % 2 === 0)), writer(batches.filter((_, index) => index % 2 === 1))]);
	// Fresh statistics, so the loads read the source with the plan they would have in production (`analyze: false`: as a bulk ingestion leaves them).
	if (options.analyze !== false) {
		const client = new pg.Client({ connectionString: databaseUrl });
		await client.connect();
		await client.query("analyze knowledge_documents, knowledge_chunks").finally(() => client.end());
	}
	return { documentIds, chunks: options.chunks, characters, word: (rank) => words[rank] };
}
