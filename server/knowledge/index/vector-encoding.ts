/** Float32 little-endian, the bytea layout of knowledge_chunks.embedding (no pgvector here). */
export function encodeVector(vector: Float32Array): Buffer {
	const bytes = Buffer.alloc(vector.length * 4);
	for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index], index * 4);
	return bytes;
}

