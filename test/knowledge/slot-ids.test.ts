import { describe, expect, it } from "vitest";
import { SlotIds } from "../../server/knowledge/index/slot-ids";

/** A loaded index's slots hold their own numbers as ids: nothing is allocated for that until a slot holds another. */
describe("slot ids", () => {
	it("answer each slot's own number, with no memory, while every slot was given its own", () => {
		const ids = new SlotIds();
		for (let slot = 0; slot < 5000; slot++) ids.set(slot, slot);
		expect([0, 1, 4999, 1_000_000].map((slot) => ids.at(slot))).toEqual([0, 1, 4999, 1_000_000]);
		expect(ids.byteLength).toBe(0);
	});

	it("keep the identity below and above the first slot given another id, and grow for slots past their length", () => {
		const ids = new SlotIds();
		ids.set(3, 17);
		expect([0, 2, 3, 4, 1023].map((slot) => ids.at(slot))).toEqual([0, 2, 17, 4, 1023]);
		expect(ids.byteLength).toBeGreaterThan(0);
		ids.set(5000, 9);
		expect([3, 1024, 4000, 5000].map((slot) => ids.at(slot))).toEqual([17, 1024, 4000, 9]);
	});

	it("keep every slot given its own number before one was given another, however far past the first", () => {
		const ids = new SlotIds();
		for (let slot = 0; slot < 3000; slot++) ids.set(slot, slot);
		// A freed slot reused for a new id (a matrix's slots are reused, its ids only added).
		ids.set(7, 3000);
		expect([6, 7, 8, 2999].map((slot) => ids.at(slot))).toEqual([6, 3000, 8, 2999]);
	});

	it("answer a renumbering's ids as given", () => {
		const ids = SlotIds.of(Int32Array.from([4, 0, 2]));
		expect([0, 1, 2].map((slot) => ids.at(slot))).toEqual([4, 0, 2]);
	});
});
