import { columnScanScratch } from "../../server/knowledge/index/vector-columns";
const s = columnScanScratch(256 * 2 ** 20);
const p = s.pages as any;
let steps = 0;
while (p.warmAhead(16)) steps++;
console.log("steps", steps, "warmed", p.warmed, "handed", p.handedOut);
p.handedOut = 1360;
steps = 0; while (p.warmAhead(16)) steps++;
console.log("steps", steps, "warmed", p.warmed);
