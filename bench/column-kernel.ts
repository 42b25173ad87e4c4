/**
 * npm run bench:column-kernel — the column kernel's two ways of summing a vector scan's int8
 * columns (column-kernel.wat): float32 (`acc4` + `above`, each value converted and multiplied
 * alone; the lexical ranking's impact bounds still use it) and integers (`acc4i` + `abovei`, int16
 * weights, two columns' rows interleaved for one dot product; the vector scan's since 64b419d).
 *
 * One scan's work at a million chunks: 16 blocks of 65,536 rows, 17 columns (a builtin query's
 * median at the scale bench's 1M source), four columns a pass with the last pass padded, then the
 * rows above a floor (about a block's 64th best score, as a scan's floor once its best 256 are
 * held). The columns stay resident in the kernel's memory, as the scan's pages do, so what is
 * timed is the kernel alone. Both ways alternate, 7 rounds of 40 scans each; the table gives each
 * way's median and best round and their ratio. Results: bench/results/column-kernel.json.
 */
import { writeFile } from "node:fs/promises";
import { columnKernel } from "../server/knowledge/index/column-kernel";
import { seededRandom } from "../test/helpers/zipf-text";
import { describeRun } from "./run-record";

const ROWS = 65_536;
const BLOCKS = 16;
const COLUMNS = 17;
const ROUNDS = 7;
const SCANS_PER_ROUND = 40;
const log = (message: string) => process.stdout.write(`${message}\n`);

const SCORES_AT = 0;
const ROWS_AT = ROWS * 4;
const COLUMNS_AT = ROWS_AT + ROWS * 4;
const kernel = columnKernel(COLUMNS_AT + COLUMNS * ROWS);
const columns = new Int8Array(kernel.buffer, COLUMNS_AT, COLUMNS * ROWS);
const random = seededRandom(20_261_207);
// Sparse-ish like builtin vectors' columns: most values small, some large, either sign.
for (let index = 0; index < columns.length; index++) columns[index] = Math.round((random() - 0.5) * 2 * (random() < 0.2 ? 127 : 20));
const weights = Array.from({ length: Math.ceil(COLUMNS / 4) * 4 }, (_, index) => (index < COLUMNS ? (random() - 0.3) * 0.05 : 0));
const unit = Math.max(...weights.map(Math.abs)) / 32_767;
const integerWeights = weights.map((weight) => Math.round(weight / unit));
const columnAt = (column: number) => COLUMNS_AT + Math.min(column, COLUMNS - 1) * ROWS;
/** A block's float32 scores from every column, four a pass. */
const accumulateFloat32 = () => {
	for (let first = 0; first < weights.length; first += 4) {
		kernel.accumulate(SCORES_AT, columnAt(first), columnAt(first + 1), columnAt(first + 2), columnAt(first + 3), ROWS, weights[first], weights[first + 1], weights[first + 2], weights[first + 3], first === 0 ? 0 : 1);
	}
};
accumulateFloat32();
// The floor a scan holds once its best 256 are found: about the block's 64th best score (a few rows above it a block).
const FLOOR = [...new Float32Array(kernel.buffer, SCORES_AT, ROWS)].sort((a, b) => b - a)[64];

/** One scan's kernel work both ways; returns the rows found above the floor (so neither is optimised away). */
const scans = {
	float32: () => {
		let found = 0;
		for (let block = 0; block < BLOCKS; block++) {
			accumulateFloat32();
			found += kernel.above(SCORES_AT, ROWS, FLOOR, ROWS_AT);
		}
		return found;
	},
	integers: () => {
		let found = 0;
		for (let block = 0; block < BLOCKS; block++) {
			for (let first = 0; first < weights.length; first += 4) {
				kernel.accumulateIntegers(SCORES_AT, columnAt(first), columnAt(first + 1), columnAt(first + 2), columnAt(first + 3), ROWS, integerWeights[first], integerWeights[first + 1], integerWeights[first + 2], integerWeights[first + 3], first === 0 ? 0 : 1);
			}
			found += kernel.aboveIntegers(SCORES_AT, ROWS, Math.floor(FLOOR / unit), ROWS_AT);
		}
		return found;
	},
};

const found = { float32: 0, integers: 0 };
const rounds: Record<keyof typeof scans, number[]> = { float32: [], integers: [] };
for (let round = -1; round < ROUNDS; round++) {
	for (const way of Object.keys(scans) as (keyof typeof scans)[]) {
		const start = performance.now();
		for (let scan = 0; scan < SCANS_PER_ROUND; scan++) found[way] = scans[way]();
		// Round -1 warms both ways up.
		if (round >= 0) rounds[way].push((performance.now() - start) / SCANS_PER_ROUND);
	}
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round2 = (value: number) => Math.round(value * 100) / 100;
const rows = (Object.keys(rounds) as (keyof typeof scans)[]).map((way) => ({ way, medianMs: round2(median(rounds[way])), bestMs: round2(Math.min(...rounds[way])), rowsAbove: found[way] }));
const ratio = round2(median(rounds.float32) / median(rounds.integers));
log(`| kernel | ms a scan of ${BLOCKS * ROWS} rows x ${COLUMNS} columns: median (best) of ${ROUNDS} rounds | rows above the floor |`);
log("|---|---|---|");
for (const row of rows) log(`| ${row.way} | ${row.medianMs} (${row.bestMs}) | ${row.rowsAbove} |`);
log(`float32 / integers: ${ratio}`);
await writeFile("bench/results/column-kernel.json", `${JSON.stringify({ ...describeRun({ rows: BLOCKS * ROWS, columns: COLUMNS, rounds: ROUNDS, scansPerRound: SCANS_PER_ROUND }), rows, ratio }, null, 2)}\n`);
