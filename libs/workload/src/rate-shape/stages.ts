import { z } from 'zod';
import type { RateShape } from './rate-shape.js';

/**
 * Load stages, as inference-perf's `load.stages` (each `rate` requests/s held for `duration`
 * seconds, one after another: kubernetes-sigs/inference-perf docs/config.md, "Load
 * Configuration", @00ab9cc4ea98e2da2ec62dd616e1c9ac6f3a45e3), which BLIS reads under
 * `inference_perf.stages` (docs/reference/workload-spec.md and sim/workload/inference_perf.go,
 * StageSpec, inference-sim/inference-sim@b563c4405b7847eaf682c6d603065c1faca3ca03). Two
 * differences: BLIS refuses a rate of 0, sluice takes it as a pause (a step down to idle, for a
 * scale-down to show); and BLIS runs each stage as its own clients active in the stage's window,
 * sluice draws one process and changes its time (rate-shape.ts), so a stages workload makes the
 * same draws as the constant one at the stages' mean rate.
 */
export const StageSchema = z.strictObject({
  /** Requests per second over all clients during the stage; 0 is a pause. */
  rate: z.number().finite().nonnegative('must be >= 0'),
  /** Seconds. */
  duration: z.number().finite().positive('must be > 0'),
});
export type Stage = z.infer<typeof StageSchema>;

/** Seconds from the first stage's start to the last one's end. */
export function stagesDuration(stages: readonly Stage[]): number {
  return stages.reduce((sum, s) => sum + s.duration, 0);
}

/** The stages' time-weighted mean rate (requests/s): what they offer in all over their total duration. */
export function stagesMeanRate(stages: readonly Stage[]): number {
  return stages.reduce((sum, s) => sum + s.rate * s.duration, 0) / stagesDuration(stages);
}

/**
 * The stages as a change of time. Λ is piecewise linear: stage k spans workload times
 * [startMs[k], startMs[k+1]) and operational times [startU[k], startU[k+1]), at slope
 * rate_k / mean. Boundaries are exact: an arrival is never placed outside its stage.
 */
export function stagesRateShape(stages: readonly Stage[]): RateShape {
  if (stages.length === 0) throw new RangeError('stagesRateShape: no stages');
  const meanRate = stagesMeanRate(stages);
  if (!(meanRate > 0)) throw new RangeError('stagesRateShape: every stage has rate 0');
  const startMs = [0];
  const startU = [0];
  for (const s of stages) {
    startMs.push(startMs.at(-1)! + s.duration * 1000);
    startU.push(startU.at(-1)! + (s.rate * s.duration * 1000) / meanRate);
  }
  const endMs = startMs.at(-1)!;
  const endU = startU.at(-1)!;
  /** The last k < stages.length with bounds[k] <= x (0 when none). */
  const stageAt = (bounds: readonly number[], x: number): number => {
    let lo = 0;
    let hi = stages.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bounds[mid]! <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    meanRate,
    rateAt(tMs) {
      if (tMs < 0 || tMs >= endMs) return 0;
      return stages[stageAt(startMs, tMs)]!.rate;
    },
    operationalMs(tMs) {
      if (tMs <= 0) return 0;
      if (tMs >= endMs) return endU;
      const k = stageAt(startMs, tMs);
      return Math.min(startU[k + 1]!, startU[k]! + ((tMs - startMs[k]!) * stages[k]!.rate) / meanRate);
    },
    workloadMs(uMs) {
      if (!(uMs >= 0)) throw new RangeError(`workloadMs: operational time must be >= 0, got ${uMs}`);
      if (uMs >= endU) return Infinity;
      // The last stage starting at or before u; stages of rate 0 before it span no operational time.
      const k = stageAt(startU, uMs);
      return Math.min(startMs[k + 1]!, startMs[k]! + ((uMs - startU[k]!) * meanRate) / stages[k]!.rate);
    },
  };
}
