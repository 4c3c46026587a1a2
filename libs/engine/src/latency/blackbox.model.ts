import { micros } from '@sluice/contracts';
import type { Micros } from '../engine.types.js';
import type { LatencyModel } from './latency-model.js';

export const BLACKBOX = 'blackbox';

/** BLIS's α (arrival/output overheads) and β (step regression) coefficients, in µs. */
export interface BlackboxCoefficients {
  readonly alpha: readonly [number, number, number];
  readonly beta: readonly [number, number, number];
}

/**
 * BLIS's "blackbox" model: linear regressions fitted per model and GPU.
 * - queueing delay = α0 + α1·inputTokens
 * - step time      = β0 + β1·(new prefill tokens, cache misses only) + β2·(decode tokens)
 * - output token   = α2
 * Fractions are truncated, as BLIS does when it converts to integer ticks. Fitted coefficients
 * may be negative, so the delays are floored at 0 and the step time at 1 µs.
 */
export function createBlackboxModel({ alpha, beta }: BlackboxCoefficients): LatencyModel {
  const [a0, a1, a2] = alpha;
  const [b0, b1, b2] = beta;
  const outputDelay = micros(Math.max(0, Math.trunc(a2)));
  return {
    name: BLACKBOX,
    queueingDelayUs: (inputTokens: number): Micros => micros(Math.max(0, Math.trunc(a0 + a1 * inputTokens))),
    stepTimeUs: (prefillTokens: number, decodeTokens: number): Micros => micros(Math.max(1, Math.trunc(b0 + b1 * prefillTokens + b2 * decodeTokens))),
    outputTokenDelayUs: (): Micros => outputDelay,
  };
}
