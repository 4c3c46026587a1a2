import type { Micros } from '../engine.types.js';

/**
 * How long the modelled GPU takes. A strategy chosen by name (docs/behaviour.md §1: "the model is an
 * interface so a roofline or trained model can be added"); the engine depends only on this.
 * Every result is whole microseconds, so a run replays to the same integers.
 */
export interface LatencyModel {
  readonly name: string;
  /** Time between a request's arrival at the instance and its entry into the wait queue. */
  queueingDelayUs(inputTokens: number): Micros;
  /** Duration of one engine step; at least 1 so virtual time always moves forward. */
  stepTimeUs(prefillTokens: number, decodeTokens: number): Micros;
  /** Per output token processing, added after the step's end before the token is stamped. */
  outputTokenDelayUs(): Micros;
}
