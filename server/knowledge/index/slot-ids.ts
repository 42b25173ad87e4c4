/**
 * Which chunk id (an index into a PackedStringTable) each slot of an index holds. A built or loaded
 * index gives slot s the id s, so the mapping is that identity until a slot gets another id (a
 * compaction renumbers slots, a freed slot is reused); only then is it written out. Loading a
 * million chunks used to fill a 4 MB identity array on the API's event loop.
 */
export class SlotIds {
	/** Written out once a slot holds another id than its number; a slot past its end holds its own number. */
	private ids: Int32Array | null = null;

	/** Ids as they are after a renumbering (ids[slot] is slot's id). */
	static of(ids: Int32Array): SlotIds {
		const slotIds = new SlotIds();
		slotIds.ids = ids;
		return slotIds;
	}

	at(slot: number): number {
		const { ids } = this;
		return ids && slot < ids.length ? ids[slot] : slot;
	}

	set(slot: number, id: number): void {
		if (!this.ids) {
			if (slot === id) return;
			this.ids = withIdentityFrom(new Int32Array(Math.max(1024, slot + 1)), 0);
		} else if (slot >= this.ids.length) {
			const grown = new Int32Array(Math.max(slot + 1, Math.ceil(this.ids.length * 1.5)));
			grown.set(this.ids);
			this.ids = withIdentityFrom(grown, this.ids.length);
		}
		this.ids[slot] = id;
	}

	get byteLength(): number {
		return this.ids?.byteLength ?? 0;
	}
}

/** A slot never given an id holds its own number. */
function withIdentityFrom(ids: Int32Array, from: number): Int32Array {
	for (let slot = from; slot < ids.length; slot++) ids[slot] = slot;
	return ids;
}
