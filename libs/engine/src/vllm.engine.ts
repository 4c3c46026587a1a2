import { BLOCK_SIZE, micros, type BlockId } from '@sluice/contracts';
import { BatchFormation, type BatchLimits } from './batch-formation.js';
import { DecodeBlocks } from './decode-blocks.js';
import type { EngineCompat, EngineRequest, EngineSnapshot, EnqueueResult, InstanceEngine, Micros, StepResult, StepTokens } from './engine.types.js';
import { KvCache, KvInvariantError } from './kv/kv-cache.js';
import { KvResidency } from './kv/kv-residency.js';
import type { LatencyModel } from './latency/latency-model.js';
import { createInstanceScheduler, type InstanceScheduler, type InstanceSchedulerName } from './scheduling/instance-scheduler.js';
import { WaitQueue } from './scheduling/wait-queue.js';
import { NONE_INDEXED, blocksFor, isPrefilling, type Sequence } from './sequence.js';
import { whyUnservable, type ServingLimits } from './unservable.js';

export interface VllmEngineOptions {
  readonly model: LatencyModel;
  readonly totalKvBlocks: number;
  readonly maxModelLen: number;
  /** Most sequences in the running batch (vLLM's max_num_seqs). */
  readonly maxRunning?: number;
  /** Token budget of one step (vLLM's max_num_batched_tokens). */
  readonly maxBatchTokens?: number;
  /** Tokens per KV block; must match the block size the prompt hashes were computed with. */
  readonly blockSize?: number;
  readonly scheduler?: InstanceSchedulerName;
  /** `vllm` (default) or `blis`: BLIS parity mode (docs/behaviour.md §1). */
  readonly compat?: EngineCompat;
  /**
   * Fraction of KV block allocations whose residency is measured (vLLM's
   * `--kv-cache-metrics-sample`), in [0, 1]; 0 or absent: none, at no cost. Needs `random`.
   */
  readonly kvResidencySample?: number;
  /** The random source that picks the sampled blocks. */
  readonly random?: () => number;
}

export class DuplicateRequestError extends Error {
  override readonly name = 'DuplicateRequestError';
  constructor(requestId: string) {
    super(`request ${requestId} is already on this instance`);
  }
}

/**
 * One synthetic GPU running vLLM's continuous batching (docs/behaviour.md §1, after BLIS): a queueing
 * delay, a wait queue ordered by the instance scheduler, chunked prefill under a token budget,
 * a paged KV cache with prefix caching, recompute preemption, and α/β step times.
 *
 * Pure: the caller passes `now`, runs `step(now)` and comes back at `now + durationUs`.
 */
export class VllmEngine<R extends EngineRequest = EngineRequest> implements InstanceEngine {
  private readonly model: LatencyModel;
  private readonly kv: KvCache;
  private readonly scheduler: InstanceScheduler;
  private readonly limits: BatchLimits & ServingLimits;
  /** In the queueing delay, ordered by (queuedAtUs, enqueue order). */
  private readonly delayed: Sequence<R>[] = [];
  private readonly waiting: WaitQueue<R>;
  /** The running batch in vLLM's order: the order requests were admitted. */
  private readonly running: Sequence<R>[] = [];
  private readonly byId = new Map<string, Sequence<R>>();
  private readonly decodeBlocks: DecodeBlocks<Sequence<R>>;
  private readonly batch: BatchFormation<R>;
  private readonly compat: EngineCompat;
  private readonly residency: KvResidency | undefined;
  private preemptions = 0;
  /** Requests refused KV blocks, summed over steps (BatchFormation's count): a pure counter, never reset. */
  private kvAllocationFailures = 0;

  constructor(options: VllmEngineOptions) {
    const { model, totalKvBlocks, maxModelLen, maxRunning = 256, maxBatchTokens = 2048, blockSize = BLOCK_SIZE, scheduler = 'fcfs', compat = 'vllm', kvResidencySample = 0, random } = options;
    for (const [key, value] of Object.entries({ totalKvBlocks, maxModelLen, maxRunning, maxBatchTokens, blockSize })) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${key} must be a positive integer, got ${value}`);
    }
    if (!(kvResidencySample >= 0 && kvResidencySample <= 1)) throw new RangeError(`kvResidencySample must be in [0, 1], got ${kvResidencySample}`);
    if (kvResidencySample > 0 && random === undefined) throw new RangeError('kvResidencySample needs a random source');
    this.model = model;
    this.residency = kvResidencySample > 0 ? new KvResidency(kvResidencySample, random!) : undefined;
    this.kv = new KvCache(totalKvBlocks, this.residency);
    this.scheduler = createInstanceScheduler(scheduler);
    this.waiting = new WaitQueue(this.scheduler);
    this.limits = { maxRunning, maxBatchTokens, blockSize, maxModelLen, totalKvBlocks };
    this.compat = compat;
    this.decodeBlocks = new DecodeBlocks(blockSize);
    this.batch = new BatchFormation(this.running, this.waiting, this.kv, this.scheduler, this.limits, this.decodeBlocks, compat);
  }

  enqueue(request: R, nowUs: Micros): EnqueueResult {
    if (this.byId.has(request.id)) throw new DuplicateRequestError(request.id);
    const unservable = whyUnservable(request, this.limits);
    if (unservable) return { accepted: false, ...unservable };
    const seq: Sequence<R> = {
      request,
      arrivalUs: nowUs,
      queuedAtUs: micros(nowUs + this.model.queueingDelayUs(request.inputTokens)),
      maxTokens: request.maxTokens,
      promptHashes: promptBlocks(request.blockHashes, Math.floor(request.inputTokens / this.limits.blockSize)),
      where: 'delayed',
      generated: 0,
      streamed: 0,
      itlSinceRestartUs: 0,
      computed: 0,
      prefillTarget: request.inputTokens,
      blocks: [],
      scheduledIn: 0,
      workKind: 'prefill',
      workTokens: 0,
      workIndexed: NONE_INDEXED,
      decoding: false,
    };
    this.byId.set(request.id, seq);
    // After every request ready at the same time or earlier: equal times keep arrival order.
    let at = this.delayed.length;
    while (at > 0 && this.delayed[at - 1]!.queuedAtUs > seq.queuedAtUs) at--;
    this.delayed.splice(at, 0, seq);
    return { accepted: true, queuedAtUs: seq.queuedAtUs };
  }

  cancel(requestId: string, _nowUs: Micros): boolean {
    const seq = this.byId.get(requestId);
    if (!seq) return false;
    this.byId.delete(requestId);
    switch (seq.where) {
      case 'delayed':
        this.delayed.splice(this.delayed.indexOf(seq), 1);
        break;
      case 'waiting':
        this.waiting.remove(requestId);
        break;
      case 'running':
        this.running.splice(this.running.indexOf(seq), 1);
        this.decodeBlocks.leave(seq);
        this.kv.release(seq.blocks);
        seq.blocks = [];
        break;
    }
    return true;
  }

  /**
   * Receives a transfer's KV blocks before the request they belong to is enqueued (a decode
   * instance in a disaggregated deployment): they become cached prefix, reported with the next
   * step's KV events. Returns how many blocks landed (fewer when the cache has no free block).
   */
  importKvBlocks(hashes: readonly BlockId[]): number {
    return this.kv.importBlocks(hashes);
  }

  /** How many of the prompt's leading blocks the cache holds now: what a KV transfer need not move. */
  cachedPrefixBlocks(hashes: readonly BlockId[]): number {
    return this.kv.lookupPrefix(hashes).length;
  }

  canStep(nowUs: Micros): boolean {
    return this.running.length > 0 || this.waiting.length > 0 || (this.delayed[0]?.queuedAtUs ?? Infinity) <= nowUs;
  }

  nextReadyUs(): Micros | undefined {
    if (this.running.length > 0 || this.waiting.length > 0) return undefined;
    return this.delayed[0]?.queuedAtUs;
  }

  hasWork(): boolean {
    return this.byId.size > 0;
  }

  /**
   * Everything the step changes is applied now, at its start (docs/behaviour.md §1, "In the twin"):
   * the caller stamps the tokens at `startUs + durationUs + outputDelayUs` and starts the next
   * step at `startUs + durationUs`. Call it when `canStep(nowUs)`: an empty batch still costs β0.
   */
  step(nowUs: Micros): StepResult<R> {
    this.residency?.at(nowUs);
    this.releaseDelayed(nowUs);
    const batch = this.batch.form();
    this.preemptions += batch.preempted.length;
    let kvAllocationFailures = batch.kvAllocationFailures;

    let prefillTokens = 0;
    let decodeTokens = 0;
    // What a model of the GPU's work reads of the batch (StepBatch), taken before the step advances it.
    let prefillAttentionTokens = 0;
    let decodeContextTokens = 0;
    const tokens: StepTokens<R>[] = [];
    const completed: string[] = [];
    // BLIS parity mode: the completed sequences, whose ITL sums the result carries.
    const completedSeqs: Sequence<R>[] = [];
    for (let i = 0; i < batch.workCount; i++) {
      const seq = batch.work[i]!;
      if (seq.workKind === 'prefill') {
        prefillTokens += seq.workTokens;
        prefillAttentionTokens += seq.workTokens * (seq.prefillTarget + seq.workTokens / 2);
      } else {
        decodeTokens += seq.workTokens;
        decodeContextTokens += seq.computed;
      }
      const produced = this.advance(seq);
      tokens.push({ request: seq.request, count: produced });
      if (!isPrefilling(seq) && seq.generated >= seq.maxTokens) {
        if (this.compat === 'blis' && !this.allocateFinalToken(seq)) kvAllocationFailures++;
        this.finish(seq);
        completed.push(seq.request.id);
        if (this.compat === 'blis') completedSeqs.push(seq);
      }
    }

    this.kvAllocationFailures += kvAllocationFailures;
    const events = this.kv.drainEvents();
    const durationUs = this.model.stepTimeUs(prefillTokens, decodeTokens, { requests: batch.workCount, decodeContextTokens, prefillAttentionTokens });
    const outputDelayUs = this.model.outputTokenDelayUs();
    if (this.compat === 'blis') this.appendItl(batch.work, batch.workCount, micros(durationUs + outputDelayUs));
    return {
      startUs: nowUs,
      durationUs,
      outputDelayUs,
      tokens,
      completed,
      ...(this.compat === 'blis' ? { itlSinceRestartUs: completedSeqs.map((seq) => seq.itlSinceRestartUs) } : {}),
      preempted: batch.preempted.map((seq) => seq.request.id),
      admitted: batch.admitted.map(({ seq, cachedTokens }) => ({ requestId: seq.request.id, cachedTokens })),
      kvAllocationFailures,
      prefillTokens,
      decodeTokens,
      kvStored: events.stored,
      kvRemoved: events.removed,
      kvResidency: this.residency?.drain(),
    };
  }

  /**
   * BLIS parity mode: every request that decoded in this step appends the step's duration plus α2
   * to its ITL list; a step that finishes a (re)prefill appends nothing (inference-sim/inference-sim
   * sim/simulator.go at b563c4405b7847eaf682c6d603065c1faca3ca03, the decode branch of the batch
   * execution: `req.ITL = append(req.ITL, currStepAdvance+OutputTokenProcessingTime())`).
   */
  private appendItl(work: readonly Sequence<R>[], count: number, itlUs: Micros): void {
    for (let i = 0; i < count; i++) {
      const seq = work[i]!;
      if (seq.workKind === 'decode') seq.itlSinceRestartUs += itlUs;
    }
  }

  /**
   * Blocks held by the requests past their prefill, each distinct block once, as Dynamo's active
   * sequence tracker counts them per worker (ai-dynamo/dynamo
   * `lib/kv-router/src/sequences/block_tracker.rs` at 057096c31e3cb60ed3bc7c62ceb6846fbdb29ad0:
   * prompt block hashes live in one tree per worker, so a prefix shared by several requests counts
   * once; output blocks are the request's own). Here a prompt block is its hash; the blocks past
   * the prompt's full ones (its partial last block, the output) belong to the request alone.
   * Kept as requests join and leave decoding (`DecodeBlocks`); this walk is the check of it.
   */
  private uniqueDecodeBlocksByWalk(): number {
    const hashes = new Set<BlockId>();
    let ownBlocks = 0;
    for (const seq of this.running) {
      if (isPrefilling(seq)) continue;
      for (const hash of seq.promptHashes) hashes.add(hash);
      ownBlocks += blocksFor(seq.computed, this.limits.blockSize) - seq.promptHashes.length;
    }
    return hashes.size + ownBlocks;
  }

  /**
   * The instance's load now. `nowUs`, in BLIS parity mode, is the time of a router's live read:
   * BLIS's QueueDepth leaves out requests still in their queueing delay (docs/behaviour.md §1), and
   * one whose delay ends exactly at `nowUs` is still out (BLIS routes before an instance's queued
   * event at equal times). Without `nowUs`, or by default, every request at the instance is queued.
   */
  snapshot(nowUs?: Micros): EngineSnapshot {
    let activePrefillTokens = 0;
    for (const seq of this.running) if (isPrefilling(seq)) activePrefillTokens += seq.prefillTarget - seq.computed;
    const activeDecodeBlocks = this.decodeBlocks.count();
    // As Dynamo counts active prefill tokens: every request at the instance whose prefill is not
    // done, queued ones included (its router adds a request's prompt when it routes it and removes
    // it at the first token). Queued requests have not been looked up in the prefix cache yet, so
    // their whole prompt counts.
    for (const seq of this.delayed) activePrefillTokens += seq.prefillTarget - seq.computed;
    for (const seq of this.waiting) activePrefillTokens += seq.prefillTarget - seq.computed;
    const hits = this.kv.hitBlocks;
    const lookedUp = hits + this.kv.missBlocks;
    // Requests still in their queueing delay count as queued: they have reached the instance.
    const queued = this.delayed.length + this.waiting.length;
    return {
      queueDepth: this.compat === 'blis' && nowUs !== undefined ? this.waiting.length + this.delayedBefore(nowUs) : queued,
      waitingForCapacity: this.waiting.length,
      batchSize: this.running.length,
      inFlight: queued + this.running.length,
      kvUtilization: this.kv.allocatedBlocks / this.kv.totalBlocks,
      freeKvBlocks: this.kv.freeBlocks,
      totalKvBlocks: this.kv.totalBlocks,
      activePrefillTokens,
      activeDecodeBlocks,
      cacheHitRate: lookedUp === 0 ? 0 : hits / lookedUp,
      preemptions: this.preemptions,
      kvAllocationFailures: this.kvAllocationFailures,
    };
  }

  /** Throws if the KV books do not balance, or a running request holds other than the blocks its computed tokens fill; for tests. */
  checkInvariants(): void {
    this.kv.checkInvariants(this.running.map((seq) => seq.blocks));
    const walked = this.uniqueDecodeBlocksByWalk();
    if (this.decodeBlocks.count() !== walked) throw new KvInvariantError(`decoding requests hold ${walked} distinct blocks, counted ${this.decodeBlocks.count()}`);
    for (const seq of this.running) {
      if (seq.decoding === isPrefilling(seq)) throw new KvInvariantError(`request ${seq.request.id} is ${seq.decoding ? '' : 'not '}counted as decoding while ${isPrefilling(seq) ? '' : 'not '}prefilling`);
    }
    for (const seq of this.running) {
      const expected = blocksFor(seq.computed, this.limits.blockSize);
      if (seq.blocks.length !== expected) throw new KvInvariantError(`request ${seq.request.id} holds ${seq.blocks.length} blocks for ${seq.computed} computed tokens (expected ${expected})`);
    }
  }

  /** Requests whose queueing delay ended before `nowUs` but that no step has moved to the wait queue yet. */
  private delayedBefore(nowUs: Micros): number {
    let ended = 0;
    while (ended < this.delayed.length && this.delayed[ended]!.queuedAtUs < nowUs) ended++;
    return ended;
  }

  /** Moves requests whose queueing delay is over into the wait queue, in the order they became ready. */
  private releaseDelayed(nowUs: Micros): void {
    let ready = 0;
    while (ready < this.delayed.length && this.delayed[ready]!.queuedAtUs <= nowUs) ready++;
    for (const seq of this.delayed.splice(0, ready)) {
      seq.where = 'waiting';
      this.waiting.enter(seq);
    }
  }

  /**
   * Applies one request's share of the step and returns the tokens it produced: a prefill
   * that finishes samples the first token (or the next one after a preemption); a decode step
   * samples one. With max_tokens = 0 the finished prefill samples nothing.
   */
  private advance(seq: Sequence<R>): number {
    const before = seq.computed;
    seq.computed += seq.workTokens;
    if (seq.workKind === 'prefill') {
      if (isPrefilling(seq)) return 0;
      this.decodeBlocks.join(seq);
    } else this.decodeBlocks.grew(seq, before);
    const produced = seq.generated < seq.maxTokens ? 1 : 0;
    seq.generated += produced;
    // BLIS parity mode regenerates the output after a preemption: the tokens the caller already
    // has are not reported twice (it streams each token once).
    if (seq.generated <= seq.streamed) return 0;
    seq.streamed = seq.generated;
    return produced;
  }

  /**
   * BLIS parity mode: a completing request takes a KV slot for its final output token, which BLIS
   * does though vLLM never feeds that token back (docs/behaviour.md §1). The slot is freed with the
   * rest at once; only when it cannot be had does anything show: the step's KV allocation failures.
   * Returns false when the slot was refused.
   */
  private allocateFinalToken(seq: Sequence<R>): boolean {
    const { blockSize } = this.limits;
    const needed = blocksFor(seq.computed + 1, blockSize) - blocksFor(seq.computed, blockSize);
    if (needed === 0) return true;
    if (!this.kv.canAllocate(needed)) return false;
    this.kv.allocateInto(needed, seq.blocks);
    seq.computed += 1;
    this.decodeBlocks.grew(seq, seq.computed - 1);
    return true;
  }

  private finish(seq: Sequence<R>): void {
    this.running.splice(this.running.indexOf(seq), 1);
    this.decodeBlocks.leave(seq);
    this.kv.release(seq.blocks);
    seq.blocks = [];
    this.byId.delete(seq.request.id);
  }
}

/**
 * The prompt's full blocks: the request's own list when it has no more (as the gateway and the
 * twin send it), which the engine only reads, rather than a copy kept for the request's lifetime.
 */
function promptBlocks(hashes: readonly BlockId[], fullBlocks: number): readonly BlockId[] {
  return hashes.length <= fullBlocks ? hashes : hashes.slice(0, fullBlocks);
}
