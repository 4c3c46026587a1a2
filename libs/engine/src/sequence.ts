import type { BlockId } from '@sluice/contracts';
import type { EngineRequest, Micros } from './engine.types.js';

/** What a request does in the step being formed: a prefill chunk (cache misses only) or one decode token. */
export type WorkKind = 'prefill' | 'decode';

/**
 * A request's state inside one instance (vLLM calls it a sequence). Progress is counted in
 * tokens whose KV is computed; the last sampled token's KV is computed by the next decode step,
 * so while decoding `computed = inputTokens + generated - 1`.
 */
export interface Sequence<R extends EngineRequest = EngineRequest> {
  readonly request: R;
  /** When it reached the instance (enqueue): the "arrival" that schedulers break ties with. */
  readonly arrivalUs: Micros;
  /** When it leaves the queueing delay and joins the wait queue. */
  readonly queuedAtUs: Micros;
  /** The request's output limit, kept here so a step reads one object per sequence, not two. */
  readonly maxTokens: number;
  /** The prompt's full-block hashes (never more than the prompt's full blocks). */
  readonly promptHashes: readonly BlockId[];
  where: 'delayed' | 'waiting' | 'running';
  /** Output tokens produced so far; kept across a preemption (back to 0 in BLIS parity mode). */
  generated: number;
  /**
   * The most output tokens ever handed to the caller. It equals `generated` except in BLIS parity
   * mode after a preemption, while the request regenerates tokens it already streamed: those are
   * not reported again (the client has them).
   */
  streamed: number;
  /**
   * BLIS parity mode: the sum of the request's ITL list as BLIS keeps it, µs: each decode step's
   * duration plus α2 since the request's last (re)prefill; back to 0 at a preemption, as BLIS
   * clears the list. Its E2E is TTFT plus this (docs/blis-mode.md). Stays 0 by default.
   */
  itlSinceRestartUs: number;
  /** Tokens with computed KV, prefix-cache hits included; back to 0 when preempted. */
  computed: number;
  /** Tokens the current prefill must compute: the prompt plus any output generated before a preemption. */
  prefillTarget: number;
  /**
   * KV blocks held, in sequence order. While running it holds exactly the blocks its computed
   * tokens fill, `blocksFor(computed)` (the engine's checkInvariants checks it), so a step knows
   * what a sequence needs without reading this list.
   */
  blocks: number[];
  /**
   * Its share of the step being formed, kept on the sequence rather than in a per-step entry
   * object (the batch is formed every few ms for every running request): valid while
   * `scheduledIn` is the current pass of the instance's batch formation.
   */
  scheduledIn: number;
  workKind: WorkKind;
  workTokens: number;
  /** Blocks this step indexed for it: un-indexed again if it is preempted in the same pass. */
  workIndexed: readonly number[];
  /** Counted among the decoding requests' blocks (`DecodeBlocks`): from its prefill's end until it leaves the batch. */
  decoding: boolean;
}

/** No blocks indexed: a decode step indexes none; one shared empty list spares an allocation per token. */
export const NONE_INDEXED: readonly number[] = Object.freeze([]);

export const isPrefilling = (seq: Sequence): boolean => seq.computed < seq.prefillTarget;

export const blocksFor = (tokens: number, blockSize: number): number => Math.ceil(tokens / blockSize);
