import { percentile, type RunRecord } from '@sluice/metrics';
import { ttftOf } from './ttft-baseline.js';

export interface RecoveryOptions {
  /** Width of the sliding window of arrivals. */
  readonly windowMs: number;
  /** How far the window slides each step. */
  readonly stepMs: number;
  /** Back within this share above the baseline p99 (0.2 = within 20%). */
  readonly tolerance: number;
  /** A window with fewer TTFT samples than this says nothing and is passed over. */
  readonly minSamples: number;
}

export const DEFAULT_RECOVERY: RecoveryOptions = { windowMs: 1_000, stepMs: 100, tolerance: 0.2, minSamples: 3 };

/**
 * How long after `anchorMs` (the fault's end, or its start for a fault never undone: a kill, a
 * terminate) the cluster served as before: the start of the first window of arrivals
 * [t, t + windowMs), t = anchor + k·step, in which no request failed or was dropped and the TTFT
 * p99 is at most (1 + tolerance) × the pre-fault p99. Measured from the anchor, so a fault whose
 * effect was over when it ended recovers in 0 ms. null when no window after the anchor qualifies
 * before the last arrival: not recovered.
 */
export function recoveryMs(records: readonly RunRecord[], anchorMs: number, baselineP99: number, options: RecoveryOptions = DEFAULT_RECOVERY): number | null {
  const served = records.filter((r) => r.outcome !== 'rejected' && r.arrivalMs >= anchorMs).sort((a, b) => a.arrivalMs - b.arrivalMs);
  if (served.length === 0) return null;
  const last = served.at(-1)!.arrivalMs;
  const limit = (1 + options.tolerance) * baselineP99;
  let lo = 0;
  for (let t = anchorMs; t <= last; t += options.stepMs) {
    while (lo < served.length && served[lo]!.arrivalMs < t) lo++;
    const ttfts: number[] = [];
    let broken = false;
    for (let i = lo; i < served.length && served[i]!.arrivalMs < t + options.windowMs; i++) {
      const r = served[i]!;
      if (r.outcome === 'failed' || r.outcome === 'dropped') broken = true;
      const ttft = ttftOf(r);
      if (ttft !== undefined) ttfts.push(ttft);
    }
    if (broken || ttfts.length < options.minSamples) continue;
    if (percentile(ttfts.sort((a, b) => a - b), 99)! <= limit) return t - anchorMs;
  }
  return null;
}
