import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileReads } from "../../server/shared/positional-reads";
import { runInSlices, runToEnd, type Steps } from "../../server/shared/time-slices";

/**
 * Sliced work that needs bytes of a file yields the reads and finds them made when it goes on: at
 * once when run to the end, off the event loop when run in slices; a failed read is thrown where
 * the work yielded, so its own handling and `finally` blocks run as for any error of its own.
 */
describe("steps that read files", () => {
	let directory: string;
	let descriptor: number;
	const bytes = Buffer.from(Array.from({ length: 64 * 1024 }, (_, index) => index % 251));

	beforeAll(async () => {
		directory = await mkdtemp(join(tmpdir(), "time-slices-test-"));
		await writeFile(join(directory, "file"), bytes);
		descriptor = openSync(join(directory, "file"), "r");
	});

	afterAll(async () => {
		closeSync(descriptor);
		await rm(directory, { recursive: true, force: true });
	});

	/** Reads two ranges together, then one past the file's end if asked; records what it saw. */
	function* reading(pastTheEnd: boolean, seen: string[]): Steps<number[]> {
		const first = new Uint8Array(1000);
		const second = new Uint8Array(3000);
		try {
			yield new FileReads([
				{ descriptor, into: first, position: 10 },
				{ descriptor, into: second, position: 60_000 },
			]);
			seen.push("read");
			yield;
			if (pastTheEnd) {
				try {
					yield new FileReads([{ descriptor, into: new Uint8Array(100), position: bytes.length - 50 }]);
				} catch (error) {
					seen.push(`caught: ${(error as Error).message}`);
					throw error;
				}
			}
			return [...first.subarray(0, 3), ...second.subarray(0, 3)];
		} finally {
			seen.push("finally");
		}
	}

	it("finds its reads made, at once or in slices", async () => {
		const expected = [...bytes.subarray(10, 13), ...bytes.subarray(60_000, 60_003)];
		const seen: string[] = [];
		expect(runToEnd(reading(false, seen))).toEqual(expected);
		// Slices of a second: only the read pauses it; the work goes on once the read is made, not within the call.
		const sliced = runInSlices(() => reading(false, seen), { sliceMs: 1000 });
		expect(seen).toEqual(["read", "finally"]);
		expect(await sliced).toEqual(expected);
		expect(seen).toEqual(["read", "finally", "read", "finally"]);
	});

	it("gets a failed read thrown where it yielded, in both runners", async () => {
		const seenAtOnce: string[] = [];
		expect(() => runToEnd(reading(true, seenAtOnce))).toThrow("An index file ended early");
		expect(seenAtOnce).toEqual(["read", "caught: An index file ended early", "finally"]);
		const seenInSlices: string[] = [];
		await expect(runInSlices(() => reading(true, seenInSlices), { sliceMs: 0 })).rejects.toThrow("An index file ended early");
		expect(seenInSlices).toEqual(["read", "caught: An index file ended early", "finally"]);
	});
});
