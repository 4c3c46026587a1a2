import type { Micros } from '../engine.types.js';

/**
 * What a step's batch holds beyond its token counts: what a model of the GPU's work (rather than a
 * regression on the counts) needs. The engine fills it for every step; a caller with only the
 * counts may leave it out (see `stepTimeUs`).
 */
export interface StepBatch {
  /** Requests scheduled in the step (BLIS's batch size: those given tokens in the step). */
  readonly requests: number;
  /**
   * Σ over the decoding requests of the tokens already in their KV before the step (BLIS's
   * ProgressIndex): what their attention reads.
   */
  readonly decodeContextTokens: number;
  /**
   * Σ over the prefill chunks of t·(s + t/2), t the chunk's new tokens and s the length of the
   * prefill it belongs to: the attention work of chunked prefill, as BLIS counts it.
   */
  readonly prefillAttentionTokens: number;
}

/**
 * How long the modelled GPU takes. A strategy chosen by name (docs/behaviour.md §1: "the model is an
 * interface so a roofline or trained model can be added"); the engine depends only on this.
 * Every result is whole microseconds, so a run replays to the same integers.
 */
export interface LatencyModel {
  readonly name: string;
  /** Time between a request's arrival at the instance and its entry into the wait queue. */
  queueingDelayUs(inputTokens: number): Micros;
  /**
   * Duration of one engine step; at least 1 so virtual time always moves forward. Without
   * `batch`, the batch is taken as one fresh prefill of `prefillTokens` (s = t) plus
   * `decodeTokens` requests with nothing in their KV; the engine always gives it.
   */
  stepTimeUs(prefillTokens: number, decodeTokens: number, batch?: StepBatch): Micros;
  /** Per output token processing, added after the step's end before the token is stamped. */
  outputTokenDelayUs(): Micros;
}

/** The batch `stepTimeUs` assumes when a caller gives only the token counts. */
export const batchOfCounts = (prefillTokens: number, decodeTokens: number): StepBatch => ({
  requests: decodeTokens + (prefillTokens > 0 ? 1 : 0),
  decodeContextTokens: 0,
  prefillAttentionTokens: prefillTokens * (prefillTokens + prefillTokens / 2),
});
