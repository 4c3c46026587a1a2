import type { KvCache } from './kv/kv-cache.js';
import type { InstanceScheduler } from './scheduling/instance-scheduler.js';
import type { WaitQueue } from './scheduling/wait-queue.js';
import { blocksFor, isPrefilling, type Sequence } from './sequence.js';

export interface BatchLimits {
  readonly maxRunning: number;
  readonly maxBatchTokens: number;
  readonly blockSize: number;
}

/** One request's share of a step: a prefill chunk (cache misses only) or one decode token. */
export interface ScheduledWork {
  readonly seq: Sequence;
  readonly kind: 'prefill' | 'decode';
  readonly tokens: number;
}

export interface FormedBatch {
  /** In batch order: running requests first, then the newly admitted ones. */
  readonly work: readonly ScheduledWork[];
  readonly preempted: readonly Sequence[];
  readonly admitted: ReadonlyArray<{ readonly seq: Sequence; readonly cachedTokens: number }>;
}

interface Entry extends ScheduledWork {
  /** Blocks this step indexed for this request: un-indexed if it is preempted in the same step. */
  readonly indexed: readonly number[];
}

/** A decode step indexes nothing; one shared empty list spares an allocation per token. */
const NONE_INDEXED: readonly number[] = Object.freeze([]);

/**
 * vLLM's scheduler pass with chunked prefill, as BLIS models it (BEHAVIOUR.md §1, "Batch
 * formation"). It allocates KV blocks and moves requests between the wait queue and the running
 * batch; the caller then applies the progress. One instance per step.
 */
export class BatchFormation {
  private budget: number;
  private readonly entries = new Map<Sequence, Entry>();
  private readonly preempted: Sequence[] = [];
  private readonly admitted: { seq: Sequence; cachedTokens: number }[] = [];

  constructor(
    private readonly running: Sequence[],
    private readonly waiting: WaitQueue,
    private readonly kv: KvCache,
    private readonly scheduler: InstanceScheduler,
    private readonly limits: BatchLimits,
  ) {
    this.budget = limits.maxBatchTokens;
  }

  form(): FormedBatch {
    this.scheduleRunning();
    this.admitWaiting();
    return { work: [...this.entries.values()], preempted: this.preempted, admitted: this.admitted };
  }

  /** Phase 1: every running request in batch order gets its next chunk or its decode token. */
  private scheduleRunning(): void {
    for (const seq of [...this.running]) {
      if (this.budget <= 0) break;
      if (seq.where !== 'running') continue; // preempted earlier in this pass
      const kind = isPrefilling(seq) ? 'prefill' : 'decode';
      const tokens = kind === 'prefill' ? Math.min(seq.prefillTarget - seq.computed, this.budget) : 1;
      const needed = blocksFor(seq.computed + tokens, this.limits.blockSize) - seq.blocks.length;
      if (!this.makeRoom(seq, needed)) continue;
      // Most decode steps stay inside the last block: nothing to allocate.
      if (needed > 0) for (const id of this.kv.allocate(needed)) seq.blocks.push(id);
      this.schedule(seq, kind, tokens);
    }
  }

  /**
   * Preempts until `needed` blocks are free (vLLM's recompute preemption). Returns false when
   * the request itself was the victim.
   */
  private makeRoom(seq: Sequence, needed: number): boolean {
    while (!this.kv.canAllocate(needed)) {
      const victim = this.scheduler.victim(this.running);
      if (!victim) return false;
      this.preempt(victim);
      if (victim === seq) return false;
    }
    return true;
  }

  private preempt(victim: Sequence): void {
    const entry = this.entries.get(victim);
    if (entry) {
      // Only a priority victim can already be scheduled in this pass: give its budget back and
      // un-index the blocks it would have computed (vLLM does the same for its budget).
      this.budget += entry.tokens;
      for (const id of entry.indexed) this.kv.forget(id);
      this.entries.delete(victim);
    }
    this.kv.release(victim.blocks);
    victim.blocks = [];
    victim.computed = 0;
    victim.where = 'waiting';
    this.running.splice(this.running.indexOf(victim), 1);
    this.waiting.returnPreempted(victim);
    this.preempted.push(victim);
  }

  /**
   * Phase 2: new requests from the head of the wait queue. After a preemption nothing is
   * admitted (the KV cache is short); a head that does not fit blocks everything behind it.
   */
  private admitWaiting(): void {
    const { maxRunning, blockSize } = this.limits;
    while (this.preempted.length === 0 && this.running.length < maxRunning && this.budget > 0) {
      const seq = this.waiting.peek();
      if (!seq) return;
      // A re-prefill after preemption recomputes the output generated so far too.
      const target = seq.request.inputTokens + seq.generated;
      // Keep at least one token to compute: a step must run to sample the next token.
      const hits = this.kv.lookupPrefix(seq.promptHashes, Math.floor((target - 1) / blockSize));
      const cachedTokens = hits.length * blockSize;
      const tokens = Math.min(target - cachedTokens, this.budget);
      const needed = blocksFor(cachedTokens + tokens, blockSize) - hits.length;
      if (!this.kv.canAllocate(needed, hits)) return;
      this.waiting.shift();
      this.kv.claim(hits);
      seq.blocks = [...hits, ...this.kv.allocate(needed)];
      seq.computed = cachedTokens;
      seq.prefillTarget = target;
      seq.where = 'running';
      this.running.push(seq);
      this.admitted.push({ seq, cachedTokens });
      this.schedule(seq, 'prefill', tokens);
    }
  }

  /**
   * Books the work and, for a prefill chunk, indexes the prompt blocks it fills. Indexing at
   * allocation, not after the step, follows vLLM v1 and BLIS: a request admitted later in the
   * same pass can already hit them.
   */
  private schedule(seq: Sequence, kind: ScheduledWork['kind'], tokens: number): void {
    let indexed = NONE_INDEXED;
    if (kind === 'prefill') {
      const filled: number[] = [];
      indexed = filled;
      const { blockSize } = this.limits;
      const firstFilled = Math.floor(seq.computed / blockSize);
      const endFilled = Math.min(Math.floor((seq.computed + tokens) / blockSize), seq.promptHashes.length);
      for (let j = firstFilled; j < endFilled; j++) {
        const id = seq.blocks[j]!;
        if (this.kv.register(id, seq.promptHashes[j]!)) filled.push(id);
      }
    }
    this.budget -= tokens;
    this.entries.set(seq, { seq, kind, tokens, indexed });
  }
}
