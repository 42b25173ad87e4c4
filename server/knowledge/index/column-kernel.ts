import { COLUMN_KERNEL_WASM_BASE64 } from "./column-kernel.generated";

/** The part of WebAssembly's API used here: Node has it, the TypeScript libraries this repository uses do not declare it. */
declare const WebAssembly: {
	Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
	Module: new (bytes: Uint8Array) => object;
	Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
};

/** The column kernel (column-kernel.wat) over a memory of its own; its functions take byte offsets into `buffer`. */
export interface ColumnKernel {
	buffer: ArrayBuffer;
	/** Float32 scores at `scores` (set, or added to when `add` is 1) from four int8 columns and their weights, 16 rows per instruction. */
	accumulate: (scores: number, a: number, b: number, c: number, d: number, rows: number, wa: number, wb: number, wc: number, wd: number, add: number) => void;
	/** accumulate for one column (a remainder of fewer than four). */
	accumulateOne: (scores: number, a: number, rows: number, wa: number, add: number) => void;
	/** Writes the rows of [0, rows) (a multiple of 16) whose float32 score at `scores` is above `floor` to `out` (int32), in order; returns how many. */
	above: (scores: number, rows: number, floor: number, out: number) => number;
	/** accumulate in integers: int32 scores, int16 weights, each row's products summed exactly (the vector scan's). */
	accumulateIntegers: (scores: number, a: number, b: number, c: number, d: number, rows: number, wa: number, wb: number, wc: number, wd: number, add: number) => void;
	/** above for accumulateIntegers' int32 scores. */
	aboveIntegers: (scores: number, rows: number, floor: number, out: number) => number;
}

/** An instance of the kernel with at least `bytes` of memory (never grown). */
export function columnKernel(bytes: number): ColumnKernel {
	const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65_536)) });
	const kernel = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(COLUMN_KERNEL_WASM_BASE64, "base64")), { env: { memory } });
	return {
		buffer: memory.buffer,
		accumulate: kernel.exports.acc4 as ColumnKernel["accumulate"],
		accumulateOne: kernel.exports.acc1 as ColumnKernel["accumulateOne"],
		above: kernel.exports.above as ColumnKernel["above"],
		accumulateIntegers: kernel.exports.acc4i as ColumnKernel["accumulateIntegers"],
		aboveIntegers: kernel.exports.abovei as ColumnKernel["aboveIntegers"],
	};
}
