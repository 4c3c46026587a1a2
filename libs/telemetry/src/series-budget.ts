/**
 * How often a full budget looks for idle keys when a new one arrives: a sweep walks every slot, and
 * a flood of new keys past a large budget would otherwise walk them all on every request.
 */
const SWEEP_ON_ADMIT_EVERY_MS = 1_000;

/**
 * How many keys (a tenant, a flow: whatever one group of series is labelled by) may have series of
 * their own on a metrics page. A key admitted holds a slot until it is released: by its owner (a
 * flow forgotten) or, when `idleMs` is set, after it has had nothing in flight for that long. Past
 * the limit a new key is refused, and its caller writes under the shared overflow key (`other`).
 *
 * The budget is on keys, not on label values: one tenant's key in the gateway is a dozen histograms
 * (~42 kB of page per model, docs/metrics.md), so a cap of 1000 values per label would still allow
 * a page of tens of MB.
 * A key's page cost is known, so `limit` × that cost is the page's bound.
 *
 * A released key's series are removed by `onRelease`, as the Endpoint Picker deletes a flow's
 * series when its registry garbage-collects the flow. Time is injected (`now`, in ms), so idling
 * out is testable without sleeping.
 */
export class SeriesBudget {
  private readonly slots = new Map<string, { inFlight: number; lastUsedMs: number }>();
  private lastSweepOnAdmitMs = -Infinity;

  constructor(
    readonly limit: number,
    private readonly options: { readonly idleMs?: number; readonly now: () => number; readonly onRelease: (key: string) => void },
  ) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  }

  /**
   * Whether `key` has a slot: it holds one, or one is free (idle keys are released first to make
   * room, at most once a second). Marks the key used now.
   */
  admit(key: string): boolean {
    const now = this.options.now();
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      slot.lastUsedMs = now;
      return true;
    }
    if (this.slots.size >= this.limit && now - this.lastSweepOnAdmitMs >= SWEEP_ON_ADMIT_EVERY_MS) {
      this.lastSweepOnAdmitMs = now;
      this.sweep();
    }
    if (this.slots.size >= this.limit) return false;
    this.slots.set(key, { inFlight: 0, lastUsedMs: now });
    return true;
  }

  /** A request of an admitted key started: the key is not idle until it ends. */
  hold(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    slot.inFlight += 1;
    slot.lastUsedMs = this.options.now();
  }

  /** A request of an admitted key ended. */
  unhold(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    slot.inFlight = Math.max(0, slot.inFlight - 1);
    slot.lastUsedMs = this.options.now();
  }

  /** Frees `key`'s slot and removes its series (its flow was forgotten). */
  release(key: string): void {
    if (!this.slots.delete(key)) return;
    this.options.onRelease(key);
  }

  /** Releases every key with nothing in flight and no use for `idleMs` (no-op without `idleMs`). */
  sweep(): number {
    const { idleMs } = this.options;
    if (idleMs === undefined) return 0;
    const now = this.options.now();
    let released = 0;
    for (const [key, slot] of this.slots) {
      if (slot.inFlight > 0 || now - slot.lastUsedMs < idleMs) continue;
      this.release(key);
      released += 1;
    }
    return released;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  get size(): number {
    return this.slots.size;
  }
}
