import { z } from 'zod';
import type { RateShape } from './rate-shape.js';

/**
 * A diurnal cycle: the rate swings as a cosine around the workload's `aggregate_rate` (its mean),
 * rate(t) = mean · (1 + a · cos(2π (t − peak_at) / period)) with a = (r − 1) / (r + 1), so the
 * peak (mean · (1 + a)) is r times the trough (mean · (1 − a)). BLIS's cohorts take the same
 * `peak_to_trough_ratio` (≥ 1) and a `peak_hour` on a 24-hour clock (docs/reference/workload-spec.md,
 * "Diurnal Pattern"; sim/workload/cohort.go, diurnalWindows,
 * inference-sim/inference-sim@b563c4405b7847eaf682c6d603065c1faca3ca03), where the cosine sets how
 * much of each hour a client is active (a square wave within the hour, its peak the client's full
 * rate). sluice modulates the rate itself, smoothly, around the mean, and takes a `period` in
 * seconds, so an experiment can compress a day into minutes.
 */
export const DiurnalSchema = z
  .strictObject({
    /** Seconds of one cycle. */
    period: z.number().finite().positive('must be > 0'),
    /** Peak rate over trough rate, >= 1 (1: constant). */
    peak_to_trough_ratio: z.number().finite().min(1, 'must be >= 1'),
    /** Seconds into the cycle at which the rate peaks, in [0, period); default 0 (the workload starts at its peak). */
    peak_at: z.number().finite().nonnegative('must be >= 0').optional(),
  })
  .refine((d) => d.peak_at === undefined || d.peak_at < d.period, { message: 'must be < period', path: ['peak_at'] });
export type Diurnal = z.infer<typeof DiurnalSchema>;

/**
 * Λ⁻¹ stops once a Newton step is at most this many ms (1 ns), by then accurate to about the
 * float's own precision: far below the µs that traces and the gateway read.
 */
const INVERSE_TOLERANCE_MS = 1e-6;
const MAX_ITERATIONS = 100;

/**
 * The cycle as a change of time around `meanRate`:
 * Λ(t) = t + (a / ω) · (sin(ω (t − peak)) + sin(ω · peak)), ω = 2π / period, strictly increasing
 * (its slope is 1 + a cos(…) ≥ 1 − a > 0). Λ⁻¹ has no closed form: Newton's method from t = u,
 * kept inside the bracket [u − 2a/ω, u + 2a/ω] (|Λ(t) − t| ≤ 2a/ω) by bisecting whenever a step
 * would leave it, so it converges from anywhere, deterministically, in a few iterations.
 */
export function diurnalRateShape(diurnal: Diurnal, meanRate: number): RateShape {
  if (!(meanRate > 0)) throw new RangeError(`diurnalRateShape: mean rate must be > 0, got ${meanRate}`);
  const r = diurnal.peak_to_trough_ratio;
  const a = (r - 1) / (r + 1);
  const omega = (2 * Math.PI) / (diurnal.period * 1000);
  const peakMs = (diurnal.peak_at ?? 0) * 1000;
  const offset = Math.sin(omega * peakMs);
  const operationalMs = (tMs: number): number => tMs + (a / omega) * (Math.sin(omega * (tMs - peakMs)) + offset);
  const slope = (tMs: number): number => 1 + a * Math.cos(omega * (tMs - peakMs));
  return {
    meanRate,
    rateAt: (tMs) => meanRate * slope(tMs),
    operationalMs,
    workloadMs(uMs) {
      if (!(uMs >= 0)) throw new RangeError(`workloadMs: operational time must be >= 0, got ${uMs}`);
      if (a === 0) return uMs;
      const reach = (2 * a) / omega;
      let lo = Math.max(0, uMs - reach);
      let hi = uMs + reach;
      let t = uMs;
      for (let i = 0; i < MAX_ITERATIONS; i++) {
        const excess = operationalMs(t) - uMs;
        if (excess === 0) return t;
        if (excess > 0) hi = t;
        else lo = t;
        const step = excess / slope(t);
        // A Newton step this small means t was that close, and the step's image is far closer
        // (quadratic convergence): take it before the bracket test, which a step of 0 would fail.
        if (Math.abs(step) <= INVERSE_TOLERANCE_MS) return t - step;
        let next = t - step;
        if (!(next > lo && next < hi)) next = (lo + hi) / 2;
        if (hi - lo <= INVERSE_TOLERANCE_MS) return next;
        t = next;
      }
      return t;
    },
  };
}
