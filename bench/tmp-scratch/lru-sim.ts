import { readFileSync } from "node:fs";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
const keep = JSON.parse(readFileSync("/work/scratch/keep-1m.json", "utf8"));
const used = (q: string) => { const v = embedBuiltin(q); const d: number[] = []; v.forEach((x, i) => { if (x !== 0) d.push(i); }); return d; };
const sequence: number[][] = [];
for (let r = 0; r < 3; r++) for (const set of [keep.queries, keep.warmQueries]) for (const q of set) sequence.push(used(q));
const union = new Set(sequence.flat());
console.log("dims per query p50", sequence.map((d) => d.length).sort((a, b) => a - b)[Math.floor(sequence.length / 2)], "union", union.size);
for (const capacity of [64, 128, 192, 256, 384, 512]) {
	const lru = new Map<number, true>();
	let hits = 0, total = 0, hitsLater = 0, totalLater = 0;
	sequence.forEach((dims, index) => {
		for (const d of dims) {
			total++; if (index >= 400) totalLater++;
			if (lru.has(d)) { hits++; if (index >= 400) hitsLater++; lru.delete(d); }
			lru.set(d, true);
			if (lru.size > capacity) lru.delete(lru.keys().next().value!);
		}
	});
	console.log(`capacity ${capacity} dims (${capacity} MB at 1M): hit ${(hits / total * 100).toFixed(1)}%, after first 400: ${(hitsLater / totalLater * 100).toFixed(1)}%`);
}
