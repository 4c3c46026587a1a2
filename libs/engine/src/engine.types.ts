import type { BlockId, LoadSnapshot, Micros } from '@sluice/contracts';
import type { KvResidencyObservations } from './kv/kv-residency.js';

/** Time in the engine is microseconds, branded (`Micros`, libs/contracts), as in every pure core. */
export type { Micros };

/**
 * Which engine the instance reproduces (docs/behaviour.md §1): `vllm` (default) is vLLM's
 * recompute preemption; `blis` is BLIS's blackbox commit ("BLIS parity mode"): a preempted
 * request regenerates its output from scratch, and a completing request takes a KV slot for its
 * final token.
 */
export const ENGINE_COMPAT_MODES = ['vllm', 'blis'] as const;
export type EngineCompat = (typeof ENGINE_COMPAT_MODES)[number];

/** What an instance needs of a request: no text, only sizes and the prompt's block hashes. */
export interface EngineRequest {
  readonly id: string;
  readonly inputTokens: number;
  readonly maxTokens: number;
  /** Chained hashes of the prompt's full 16-token blocks, as block ids (libs/contracts blockIds). */
  readonly blockHashes: readonly BlockId[];
  /** Higher first under `priority-fcfs` (SLO class priority, docs/behaviour.md §5). */
  readonly priority: number;
}

/** Why a request can never be served by this instance (docs/behaviour.md §1, "Unservable requests"). */
export type DropReason = 'negative_max_tokens' | 'empty_prompt' | 'input_too_long' | 'exceeds_max_model_len' | 'exceeds_kv_capacity';

export type EnqueueResult =
  /** Accepted: it joins the wait queue at `queuedAtUs` = now + α0 + α1·input (the queueing delay). */
  | { readonly accepted: true; readonly queuedAtUs: Micros }
  | { readonly accepted: false; readonly reason: DropReason; readonly message: string };

export interface StepTokens<R extends EngineRequest = EngineRequest> {
  /**
   * The request object given to `enqueue` (its id is `request.id`), so a caller can reach its own
   * state without a lookup by id. The engine does not read the request during a step.
   */
  readonly request: R;
  /**
   * Tokens this request produced in this step: 1, or 0 for a prefill chunk that did not finish
   * (and for the finished prefill of a max_tokens = 0 request, which completes with no token).
   */
  readonly count: number;
}

export interface StepResult<R extends EngineRequest = EngineRequest> {
  readonly startUs: Micros;
  /** Modelled step time: β0 + β1·(new prefill tokens) + β2·(decode tokens), truncated, ≥ 1. */
  readonly durationUs: Micros;
  /** Output-token processing time α2: tokens are stamped at startUs + durationUs + outputDelayUs. */
  readonly outputDelayUs: Micros;
  /**
   * Every request scheduled in this step, in batch order, with the tokens it produced: 1 for a
   * decode step or a finished prefill (its first token), 0 for a prefill chunk that did not finish.
   */
  readonly tokens: readonly StepTokens<R>[];
  /** Requests that produced their last token in this step. */
  readonly completed: readonly string[];
  /**
   * BLIS parity mode only: for each entry of `completed`, at the same index, the sum of its ITL list
   * as BLIS keeps it (µs): every decode step's duration plus α2 since its last (re)prefill, this
   * step's included. BLIS's E2E is TTFT plus this, so it leaves out the time lost to preemption
   * (docs/blis-mode.md, "BLIS's E2E"). Absent by default.
   */
  readonly itlSinceRestartUs?: readonly number[];
  /**
   * Requests preempted at the start of this step: blocks freed, progress reset, back in the wait
   * queue (at its front under fcfs, at their place in the order under priority-fcfs and sjf).
   */
  readonly preempted: readonly string[];
  /** Requests that entered the running batch in this step, with their prefix-cache hit (tokens). */
  readonly admitted: ReadonlyArray<{ readonly requestId: string; readonly cachedTokens: number }>;
  /** Requests that asked for KV blocks in this step and did not get them (FormedBatch's count). */
  readonly kvAllocationFailures: number;
  /** Prefill tokens computed in this step, summed over the batch (cache misses only). */
  readonly prefillTokens: number;
  /** Decode tokens in this step (one per decoding request). */
  readonly decodeTokens: number;
  /** Block hashes that became cached / stopped being cached in this step (KV events). */
  readonly kvStored: readonly BlockId[];
  readonly kvRemoved: readonly BlockId[];
  /**
   * Residency of the sampled KV blocks evicted in this step (engine µs), when the engine measures
   * it (`kvResidencySample`) and anything was observed; otherwise undefined.
   */
  readonly kvResidency?: KvResidencyObservations | undefined;
}

/**
 * The load signals an instance publishes (LoadSnapshot without identity and timestamp), plus two
 * figures for reports and metrics that are not routing signals, so the wire's LoadSnapshot schema
 * does not carry them: the cumulative KV allocation failures, and how many of the `queueDepth`
 * queued requests are in the wait queue (waiting for room in the batch; the rest are still in
 * their queueing delay).
 */
export type EngineSnapshot = Omit<LoadSnapshot, 'instanceId' | 'workerId' | 'rank' | 'atUs'> & { readonly kvAllocationFailures: number; readonly waitingForCapacity: number };

/**
 * One synthetic GPU instance. Pure: no timers, no I/O; the caller passes `now` and sleeps the
 * returned step duration. The same object runs in the worker service and in the twin.
 */
export interface InstanceEngine {
  enqueue(request: EngineRequest, nowUs: Micros): EnqueueResult;
  /** Removes the request wherever it is (delayed, waiting, running) and frees its KV blocks. */
  cancel(requestId: string, nowUs: Micros): boolean;
  /** True when a step at `nowUs` would do something. */
  canStep(nowUs: Micros): boolean;
  /** When the next request leaves its queueing delay, if the engine is otherwise idle; else undefined. */
  nextReadyUs(): Micros | undefined;
  /** True while any request is delayed, waiting or running. */
  hasWork(): boolean;
  /** Forms the batch at `nowUs` and applies the step's state changes (docs/behaviour.md §1). */
  step(nowUs: Micros): StepResult;
  /** The load now; `nowUs` matters only in BLIS parity mode (queue depth without requests still in their delay). */
  snapshot(nowUs?: Micros): EngineSnapshot;
}
