import { randomFillSync } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Cryptographic random bytes taken from a pool refilled 4 KiB at a time: ids stay as unguessable
 * as before, but a request no longer pays a randomBytes call (and its buffer) per id. Callers copy
 * out what they take before the next refill, which is synchronous and happens on a later take.
 */
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

export function takeRandomBytes(size: number): { bytes: Buffer; start: number; end: number } {
	if (size > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
	if (poolOffset + size > POOL_SIZE) {
		randomFillSync(pool);
		poolOffset = 0;
	}
	const start = poolOffset;
	poolOffset += size;
	return { bytes: pool, start, end: poolOffset };
}

/**
 * Prefixed, time-sortable ids (`ks_01JD…`): 10 characters of millisecond time then 16 of randomness
 * (a ULID). Sorting by id sorts by creation, which cursor pagination relies on; the prefix tells a
 * human what kind of object an id names, as Stripe's do.
 */
export function newId(prefix: string, now = Date.now()): string {
	// One array of character codes and one string: building the id a character at a time made
	// about 25 short-lived strings per id, which an ingestion creating ids by the hundred felt.
	const codes = new Array<number>(26);
	let remaining = now;
	for (let index = 9; index >= 0; index--) {
		codes[index] = CROCKFORD.charCodeAt(remaining % 32);
		remaining = Math.floor(remaining / 32);
	}
	const { bytes, start } = takeRandomBytes(16);
	for (let index = 0; index < 16; index++) codes[10 + index] = CROCKFORD.charCodeAt(bytes[start + index] % 32);
	return `${prefix}_${String.fromCharCode(...codes)}`;
}
