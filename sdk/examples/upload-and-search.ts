// Knowledge: a source, a document uploaded and ingested, then a search.
import { PlatformClient, toFile } from "@ai-app-platform/sdk";

const client = new PlatformClient();

// `builtin` embeds without any provider credential; leave embeddingModel out to use your provider's.
const source = await client.knowledge.sources.create({
	name: "Help center",
	embeddingModel: { provider: "builtin", model: "builtin-hash-v1" },
});

// toFile takes a string, bytes, a Blob, a ReadableStream or an fs.ReadStream; in Node,
// `fileFromPath("handbook.pdf")` from "@ai-app-platform/sdk/node" reads a file by its path.
const file = await toFile("# Returns\n\nReturns are accepted within 30 days of delivery.", "returns.md");
const document = await client.knowledge.documents.uploadAndPoll(source.id, file); // resolves once READY
console.log(`${document.filename}: ${document.status}, ${document.chunkCount} chunk(s)`);

const hits = await client.knowledge.sources.search(source.id, { query: "how long can I return an item?", topK: 3 });
for (const hit of hits.data) console.log(`${hit.score.toFixed(3)} ${hit.filename}: ${hit.text}`);

// Every source of the workspace, page after page.
for await (const each of client.knowledge.sources.list({ limit: 50 })) console.log(`source ${each.id} ${each.name}`);

await client.knowledge.sources.delete(source.id);
