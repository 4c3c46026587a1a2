import type { Micros } from '@sluice/contracts';

/**
 * What the sampled KV blocks showed since the last drain, in engine µs: one lifetime and one idle
 * time per sampled block that was evicted, and the gaps between its consecutive accesses.
 */
export interface KvResidencyObservations {
  /** Allocation → eviction. */
  readonly lifetimesUs: number[];
  /** Last access → eviction (an unaccessed block: its allocation → eviction). */
  readonly idleUs: number[];
  /** Between consecutive accesses of one block (its most recent ones only, see RECENT_ACCESSES). */
  readonly reuseGapsUs: number[];
}

/** Accesses remembered per sampled block: vLLM keeps the last four (a bounded ring per block). */
export const RECENT_ACCESSES = 4;

interface TrackedBlock {
  bornUs: number;
  lastAccessUs: number;
  /** Its most recent access times, oldest first, at most RECENT_ACCESSES. */
  readonly accesses: number[];
}

/**
 * KV block residency, sampled, as vLLM's KV cache metrics collector measures it
 * (vllm/v1/core/kv_cache_metrics.py, observed by vllm/v1/metrics/loggers.py as
 * `vllm:kv_block_lifetime_seconds`, `vllm:kv_block_idle_before_evict_seconds` and
 * `vllm:kv_block_reuse_gap_seconds`): when a block is allocated it is picked with probability
 * `sample`; a picked block records when it was born and when a prefix-cache hit reused it; when
 * it is taken for another allocation (evicted: its old contents are gone) its lifetime, idle
 * time and reuse gaps are reported, and the sampling draw is made again for its new life.
 *
 * Pure: the engine sets the time of the step under way (`at`); the random source is injected.
 * The cache calls it only when residency is measured, so an engine without it pays one
 * `undefined` check per allocated block.
 */
export class KvResidency {
  private readonly tracked = new Map<number, TrackedBlock>();
  private nowUs = 0;
  private observations: KvResidencyObservations | undefined;

  constructor(
    /** Fraction of allocations sampled, in (0, 1]. */
    readonly sample: number,
    private readonly random: () => number,
  ) {
    if (!(sample > 0 && sample <= 1)) throw new RangeError(`the KV residency sample must be in (0, 1], got ${sample}`);
  }

  /** The time of the step under way: every allocation and access until the next call happens then. */
  at(nowUs: Micros): void {
    this.nowUs = nowUs;
  }

  /** Block `id` is taken for a new allocation: its previous life (if sampled) ends; its new one may be sampled. */
  allocated(id: number): void {
    const previous = this.tracked.get(id);
    if (previous !== undefined) {
      this.evicted(previous);
      if (this.random() < this.sample) {
        previous.bornUs = this.nowUs;
        previous.lastAccessUs = this.nowUs;
        previous.accesses.length = 0;
      } else this.tracked.delete(id);
      return;
    }
    if (this.random() < this.sample) this.tracked.set(id, { bornUs: this.nowUs, lastAccessUs: this.nowUs, accesses: [] });
  }

  /** Block `id` was reused from the prefix cache. */
  accessed(id: number): void {
    const block = this.tracked.get(id);
    if (block === undefined) return;
    block.lastAccessUs = this.nowUs;
    if (block.accesses.length === RECENT_ACCESSES) block.accesses.shift();
    block.accesses.push(this.nowUs);
  }

  /** What was observed since the last call; undefined when nothing was (most steps). */
  drain(): KvResidencyObservations | undefined {
    const observations = this.observations;
    this.observations = undefined;
    return observations;
  }

  /** Sampled blocks being followed now; for tests. */
  get trackedBlocks(): number {
    return this.tracked.size;
  }

  private evicted(block: TrackedBlock): void {
    const out = (this.observations ??= { lifetimesUs: [], idleUs: [], reuseGapsUs: [] });
    out.lifetimesUs.push(this.nowUs - block.bornUs);
    out.idleUs.push(this.nowUs - block.lastAccessUs);
    const { accesses } = block;
    for (let i = 1; i < accesses.length; i++) out.reuseGapsUs.push(accesses[i]! - accesses[i - 1]!);
  }
}
