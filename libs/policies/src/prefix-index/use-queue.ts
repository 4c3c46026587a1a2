/**
 * One instance's uses of prefix-index slots, oldest first: (slot, stamp) pairs in two typed
 * arrays, so a use costs no allocation. An element is stale once its slot's stamp for the
 * instance has moved on (refreshed, removed, or the slot reused): the owner decides that, and
 * skips stale elements at the head when it evicts. `compact` keeps the live ones in place.
 */
export class UseQueue {
  private slots = new Int32Array(256);
  private stamps = new Float64Array(256);
  /** The oldest element not yet consumed. */
  head = 0;
  /** One past the newest element. */
  tail = 0;

  get pending(): number {
    return this.tail - this.head;
  }

  push(slot: number, stamp: number): void {
    if (this.tail === this.slots.length) this.grow();
    this.slots[this.tail] = slot;
    this.stamps[this.tail] = stamp;
    this.tail++;
  }

  slotAt(i: number): number {
    return this.slots[i]!;
  }

  stampAt(i: number): number {
    return this.stamps[i]!;
  }

  /** Keeps the live elements, in order, at the front. */
  compact(isLive: (slot: number, stamp: number) => boolean): void {
    let kept = 0;
    for (let i = this.head; i < this.tail; i++) {
      const slot = this.slots[i]!;
      const stamp = this.stamps[i]!;
      if (!isLive(slot, stamp)) continue;
      this.slots[kept] = slot;
      this.stamps[kept] = stamp;
      kept++;
    }
    this.head = 0;
    this.tail = kept;
  }

  private grow(): void {
    // Reclaim the consumed head first; double only if the live part fills the array.
    if (this.head > 0) {
      this.slots.copyWithin(0, this.head, this.tail);
      this.stamps.copyWithin(0, this.head, this.tail);
      this.tail -= this.head;
      this.head = 0;
      if (this.tail < this.slots.length) return;
    }
    const slots = new Int32Array(this.slots.length * 2);
    const stamps = new Float64Array(this.stamps.length * 2);
    slots.set(this.slots);
    stamps.set(this.stamps);
    this.slots = slots;
    this.stamps = stamps;
  }
}
