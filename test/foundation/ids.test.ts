import { describe, expect, it } from "vitest";
import { newId } from "../../server/shared/ids";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const timeOf = (id: string) => [...id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)].reduce((value, character) => value * 32 + CROCKFORD.indexOf(character), 0);

describe("ids", () => {
	it("name their kind, carry their creation time, and sort by it (cursor pagination relies on it)", () => {
		const created = Date.UTC(2026, 10, 28, 7, 30, 0, 123);
		const id = newId("chk", created);
		expect(id).toMatch(/^chk_[0-9A-HJKMNP-TV-Z]{26}$/);
		expect(timeOf(id)).toBe(created);
		const later = [1, 31, 32, 1_000, 86_400_000].map((step) => newId("chk", created + step));
		for (const next of later) expect(next > id).toBe(true);
		expect(later.map(timeOf)).toEqual([1, 31, 32, 1_000, 86_400_000].map((step) => created + step));
	});

	it("differ within one millisecond: 16 random characters", () => {
		const now = Date.now();
		const ids = Array.from({ length: 20_000 }, () => newId("doc", now));
		expect(new Set(ids).size).toBe(ids.length);
		// The random part uses the whole alphabet, not a few characters of it.
		expect(new Set(ids.flatMap((id) => [...id.slice(-16)])).size).toBe(32);
	});
});
