import { readFile, writeFile } from "node:fs/promises";

/** A process's resident and peak resident memory in MiB (Linux /proc; NaN where unreadable). */
export async function processMemoryMiB(pid: number | "self"): Promise<{ rssMiB: number; peakMiB: number }> {
	const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
	const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
	return { rssMiB: field("VmRSS"), peakMiB: field("VmHWM") };
}

/** Starts a new window of the process's peak resident memory (Linux: "5" to clear_refs resets VmHWM to the current RSS). */
export async function restartPeakWindow(pid: number | "self"): Promise<void> {
	await writeFile(`/proc/${pid}/clear_refs`, "5").catch(() => {});
}
