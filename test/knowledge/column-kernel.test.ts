import { describe, expect, it } from "vitest";
import { columnKernel } from "../../server/knowledge/index/column-kernel";
import { seededRandom } from "../helpers/zipf-text";

/**
 * The integer half of the column kernel (column-kernel.wat), which the vector scan sums its int8
 * columns with: each row's four int8 x int16 products in int32, exactly, and the rows above a
 * floor found sixteen at a time.
 */
describe("the column kernel's integer sums", () => {
	const ROWS = 4_096;
	const COLUMNS_AT = ROWS * 4;
	const ROWS_AT = COLUMNS_AT + 4 * ROWS;

	it("add four columns' products exactly, at the extremes of int8 values and int16 weights, and add to what is there when asked", () => {
		const kernel = columnKernel(ROWS_AT + ROWS * 4);
		const columns = new Int8Array(kernel.buffer, COLUMNS_AT, 4 * ROWS);
		const random = seededRandom(11);
		// The first rows at the extremes (every sign), then random values.
		for (let index = 0; index < columns.length; index++) columns[index] = index % ROWS < 16 ? ((index >> 2) & 1 ? 127 : -127) * (index & 1 ? 1 : -1) : Math.floor(random() * 255) - 127;
		const scores = new Int32Array(kernel.buffer, 0, ROWS);
		const column = (which: number, row: number) => columns[which * ROWS + row];
		for (const weights of [
			[32_767, -32_767, 32_767, -32_767],
			[1, 2, -3, 0],
			[-32_767, -32_767, -32_767, -32_767],
		]) {
			const expected = (row: number) => weights.reduce((sum, weight, which) => sum + weight * column(which, row), 0);
			kernel.accumulateIntegers(0, COLUMNS_AT, COLUMNS_AT + ROWS, COLUMNS_AT + 2 * ROWS, COLUMNS_AT + 3 * ROWS, ROWS, weights[0], weights[1], weights[2], weights[3], 0);
			for (let row = 0; row < ROWS; row++) expect(scores[row]).toBe(expected(row));
			// Added to the scores there: twice the sum.
			kernel.accumulateIntegers(0, COLUMNS_AT, COLUMNS_AT + ROWS, COLUMNS_AT + 2 * ROWS, COLUMNS_AT + 3 * ROWS, ROWS, weights[0], weights[1], weights[2], weights[3], 1);
			for (let row = 0; row < ROWS; row++) expect(scores[row]).toBe(2 * expected(row));
		}
	});

	it("find the rows scoring above a floor, in order, negative floors and scores included", () => {
		const kernel = columnKernel(ROWS_AT + ROWS * 4);
		const scores = new Int32Array(kernel.buffer, 0, ROWS);
		const random = seededRandom(12);
		for (let row = 0; row < ROWS; row++) scores[row] = Math.floor(random() * 2_000_000) - 1_000_000;
		const rowsAbove = new Int32Array(kernel.buffer, ROWS_AT, ROWS);
		for (const floor of [-(2 ** 31), -500_000, 0, 999_000, 2 ** 31 - 1]) {
			const found = kernel.aboveIntegers(0, ROWS, floor, ROWS_AT);
			const expected = [...scores.keys()].filter((row) => scores[row] > floor);
			expect([...rowsAbove.subarray(0, found)]).toEqual(expected);
		}
	});
});
