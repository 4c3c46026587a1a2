import type { EngineCompat, EngineRequest } from './engine.types.js';
import type { DecodeBlocks } from './decode-blocks.js';
import type { KvCache } from './kv/kv-cache.js';
import type { InstanceScheduler } from './scheduling/instance-scheduler.js';
import type { WaitQueue } from './scheduling/wait-queue.js';
import { NONE_INDEXED, blocksFor, isPrefilling, type Sequence, type WorkKind } from './sequence.js';

export interface BatchLimits {
  readonly maxRunning: number;
  readonly maxBatchTokens: number;
  readonly blockSize: number;
}

export interface FormedBatch<R extends EngineRequest = EngineRequest> {
  /**
   * In batch order: running requests first, then the newly admitted ones; each sequence's share
   * of the step is in its `workKind` / `workTokens`. Only the first `workCount` entries are this
   * step's (the array is reused: emptying it by `length = 0` would give up its storage every step).
   */
  readonly work: readonly Sequence<R>[];
  readonly workCount: number;
  readonly preempted: readonly Sequence<R>[];
  readonly admitted: ReadonlyArray<{ readonly seq: Sequence<R>; readonly cachedTokens: number }>;
  /**
   * Requests that asked for KV blocks in this pass and did not get them: a running request left
   * without room even after preempting (it was the victim, or nothing was left to preempt), or the
   * head of the wait queue that does not fit (head-of-line). A request held back in several steps
   * counts in each: the count measures steps of work lost to a full cache, not requests.
   */
  readonly kvAllocationFailures: number;
}

/**
 * vLLM's scheduler pass with chunked prefill, as BLIS models it (docs/behaviour.md §1, "Batch
 * formation"). It allocates KV blocks and moves requests between the wait queue and the running
 * batch; the caller then applies the progress.
 *
 * One per instance, reused by every step: the batch it returns is valid until the next `form()`
 * (the engine reads it at once). Nothing is allocated per running request in a decode step, which
 * is most steps: the step runs for every running request every few ms, in the worker and in the twin.
 */
export class BatchFormation<R extends EngineRequest = EngineRequest> {
  private budget = 0;
  /** Numbers the passes; a sequence's work fields belong to the pass in its `scheduledIn`. */
  private pass = 0;
  private readonly work: Sequence<R>[] = [];
  private workCount = 0;
  private kvAllocationFailures = 0;
  private readonly preempted: Sequence<R>[] = [];
  private readonly admitted: { seq: Sequence<R>; cachedTokens: number }[] = [];
  /** The running batch as the pass began (preemption edits the live list while it is walked). */
  private readonly order: Sequence<R>[] = [];

  constructor(
    private readonly running: Sequence<R>[],
    private readonly waiting: WaitQueue<R>,
    private readonly kv: KvCache,
    private readonly scheduler: InstanceScheduler,
    private readonly limits: BatchLimits,
    /** The decoding requests' blocks: a preempted request leaves them. */
    private readonly decodeBlocks: DecodeBlocks<Sequence<R>>,
    /** `blis`: a preempted request also loses its generated output (docs/behaviour.md §1, BLIS parity mode). */
    private readonly compat: EngineCompat = 'vllm',
  ) {}

  form(): FormedBatch<R> {
    this.pass++;
    this.budget = this.limits.maxBatchTokens;
    this.workCount = 0;
    this.kvAllocationFailures = 0;
    this.preempted.length = 0;
    this.admitted.length = 0;
    this.scheduleRunning();
    this.admitWaiting();
    return { work: this.work, workCount: this.workCount, preempted: this.preempted, admitted: this.admitted, kvAllocationFailures: this.kvAllocationFailures };
  }

  /** Phase 1: every running request in batch order gets its next chunk or its decode token. */
  private scheduleRunning(): void {
    const { order, running } = this;
    const count = running.length;
    for (let i = 0; i < count; i++) order[i] = running[i]!;
    for (let i = 0; i < count; i++) {
      const seq = order[i]!;
      if (this.budget <= 0) break;
      if (seq.where !== 'running') continue; // preempted earlier in this pass
      const kind = isPrefilling(seq) ? 'prefill' : 'decode';
      const tokens = kind === 'prefill' ? Math.min(seq.prefillTarget - seq.computed, this.budget) : 1;
      const needed = blocksFor(seq.computed + tokens, this.limits.blockSize) - blocksFor(seq.computed, this.limits.blockSize);
      // Most decode steps stay inside the last block: nothing to allocate, no room to make.
      if (needed > 0) {
        if (!this.makeRoom(seq, needed)) {
          this.kvAllocationFailures++;
          continue;
        }
        this.kv.allocateInto(needed, seq.blocks);
      }
      this.schedule(seq, kind, tokens);
    }
  }

  /**
   * Preempts until `needed` blocks are free (vLLM's recompute preemption). Returns false when
   * the request itself was the victim.
   */
  private makeRoom(seq: Sequence<R>, needed: number): boolean {
    while (!this.kv.canAllocate(needed)) {
      const victim = this.scheduler.victim(this.running);
      if (!victim) return false;
      this.preempt(victim);
      if (victim === seq) return false;
    }
    return true;
  }

  private preempt(victim: Sequence<R>): void {
    if (victim.scheduledIn === this.pass) {
      // Only a priority victim can already be scheduled in this pass: give its budget back and
      // un-index the blocks it would have computed (vLLM does the same for its budget).
      this.budget += victim.workTokens;
      for (const id of victim.workIndexed) this.kv.forget(id);
      victim.scheduledIn = 0;
      const at = this.work.indexOf(victim);
      this.work.copyWithin(at, at + 1, this.workCount);
      this.workCount--;
    }
    this.decodeBlocks.leave(victim);
    this.kv.release(victim.blocks);
    victim.blocks = [];
    victim.computed = 0;
    // BLIS resets progress to 0 including the output: the re-prefill covers the prompt only and
    // every output token is decoded again, and its ITL list starts again empty
    // (inference-sim/inference-sim sim/batch_formation.go at b563c4405b7847eaf682c6d603065c1faca3ca03:
    // `ProgressIndex = 0`, `ITL = nil`). vLLM keeps the output and re-prefills it too.
    if (this.compat === 'blis') {
      victim.generated = 0;
      victim.itlSinceRestartUs = 0;
    }
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
      if (!this.kv.canAllocate(needed, hits)) {
        this.kvAllocationFailures++;
        return;
      }
      this.waiting.shift();
      this.kv.claim(hits);
      seq.blocks = hits;
      this.kv.allocateInto(needed, hits);
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
  private schedule(seq: Sequence<R>, kind: WorkKind, tokens: number): void {
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
    seq.scheduledIn = this.pass;
    seq.workKind = kind;
    seq.workTokens = tokens;
    seq.workIndexed = indexed;
    this.work[this.workCount++] = seq;
  }
}
