import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * What this machine charges for the things a search through the API is made of, measured in the
 * bench's own process before the run: the same code ran at half speed on some days and not on
 * others, and a figure read without these cannot tell a change of code from a change of machine.
 *
 * - `computeNsPerPosting`: the ranking's arithmetic (a BM25 saturation added into a float32 score),
 *   in a loop over 4 million postings: the processor itself.
 * - `syscallMicroseconds`: a positional read of 16 bytes from a file in the page cache: what
 *   entering the kernel costs (each search reads index pieces with many such calls).
 * - `freshMemoryMsPerMiB` / `reusedMemoryMsPerMiB`: writing one byte per 4 KiB page of a new 64 MiB
 *   array (every page faulted in: what a load or a growing heap pays), then of the same array again.
 * - `databaseRoundTripMicroseconds`: `select 1` on one connection to the bench's PostgreSQL.
 *
 * Each is the median of 5 rounds.
 */
export interface MachineCalibration {
	computeNsPerPosting: number;
	syscallMicroseconds: number;
	freshMemoryMsPerMiB: number;
	reusedMemoryMsPerMiB: number;
	databaseRoundTripMicroseconds: number;
}

const ROUNDS = 5;
const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)];
const round = (value: number, digits: number) => Number(value.toFixed(digits));

function computeNsPerPosting(): number {
	const postings = 4 * 1024 * 1024;
	const slots = 1 << 16;
	const frequencies = Uint8Array.from({ length: postings }, (_, index) => 1 + (index % 5));
	const norms = Float32Array.from({ length: slots }, (_, index) => 0.9 + (index % 7) / 10);
	const scores = new Float32Array(slots);
	return median(
		Array.from({ length: ROUNDS }, () => {
			const start = performance.now();
			for (let index = 0; index < postings; index++) {
				const slot = (index * 7) & (slots - 1);
				const frequency = frequencies[index];
				scores[slot] += (2.2 * frequency) / (frequency + norms[slot]);
			}
			return ((performance.now() - start) * 1e6) / postings;
		}),
	);
}

function syscallMicroseconds(): number {
	const directory = mkdtempSync(join(tmpdir(), "bench-calibration-"));
	try {
		const path = join(directory, "small");
		writeFileSync(path, Buffer.alloc(4096, 1));
		const descriptor = openSync(path, "r");
		try {
			const into = Buffer.alloc(16);
			const calls = 20_000;
			return median(
				Array.from({ length: ROUNDS }, () => {
					const start = performance.now();
					for (let call = 0; call < calls; call++) readSync(descriptor, into, 0, 16, 0);
					return ((performance.now() - start) * 1000) / calls;
				}),
			);
		} finally {
			closeSync(descriptor);
		}
	} finally {
		rmSync(directory, { recursive: true, force: true });
	}
}

function memoryMsPerMiB(): { fresh: number; reused: number } {
	const mebibytes = 64;
	const fresh: number[] = [];
	const reused: number[] = [];
	for (let index = 0; index < ROUNDS; index++) {
		const bytes = new Uint8Array(mebibytes * 1024 * 1024);
		let start = performance.now();
		for (let offset = 0; offset < bytes.length; offset += 4096) bytes[offset] = 1;
		fresh.push((performance.now() - start) / mebibytes);
		start = performance.now();
		for (let offset = 0; offset < bytes.length; offset += 4096) bytes[offset] = 2;
		reused.push((performance.now() - start) / mebibytes);
	}
	return { fresh: median(fresh), reused: median(reused) };
}

async function databaseRoundTripMicroseconds(databaseUrl: string): Promise<number> {
	const client = new pg.Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		for (let query = 0; query < 100; query++) await client.query("select 1");
		const rounds: number[] = [];
		for (let index = 0; index < ROUNDS; index++) {
			const start = performance.now();
			for (let query = 0; query < 200; query++) await client.query("select 1");
			rounds.push(((performance.now() - start) * 1000) / 200);
		}
		return median(rounds);
	} finally {
		await client.end();
	}
}

export async function calibrateMachine(databaseUrl: string): Promise<MachineCalibration> {
	const memory = memoryMsPerMiB();
	return {
		computeNsPerPosting: round(computeNsPerPosting(), 2),
		syscallMicroseconds: round(syscallMicroseconds(), 2),
		freshMemoryMsPerMiB: round(memory.fresh, 3),
		reusedMemoryMsPerMiB: round(memory.reused, 3),
		databaseRoundTripMicroseconds: round(await databaseRoundTripMicroseconds(databaseUrl), 0),
	};
}

/** One line for a bench's output. */
export function describeCalibration(calibration: MachineCalibration): string {
	return `machine: ${calibration.computeNsPerPosting} ns a posting, ${calibration.syscallMicroseconds} µs a 16-byte pread, fresh memory ${calibration.freshMemoryMsPerMiB} ms/MiB (reused ${calibration.reusedMemoryMsPerMiB}), PostgreSQL round trip ${calibration.databaseRoundTripMicroseconds} µs`;
}
