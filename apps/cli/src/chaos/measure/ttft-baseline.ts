import { percentile, type RunRecord } from '@sluice/metrics';

/** TTFT as libs/metrics defines it (first token − arrival), or undefined without a first token. */
export function ttftOf(record: RunRecord): number | undefined {
  return record.firstTokenMs === undefined ? undefined : record.firstTokenMs - record.arrivalMs;
}

export interface BaselineOptions {
  /** How far back from the fault's start the window reaches. */
  readonly lookbackMs: number;
  /** Not before this (the previous fault's end): its disturbance is not the baseline. */
  readonly notBeforeMs: number;
  /** Fewer TTFT samples than this give no baseline. */
  readonly minSamples: number;
}

export const DEFAULT_BASELINE: Omit<BaselineOptions, 'notBeforeMs'> = { lookbackMs: 5_000, minSamples: 5 };

/**
 * The TTFT p99 of the requests that arrived in the pre-fault window
 * [max(start − lookback, notBefore), start) and got their first token before the fault started:
 * what "normal" was just before it. (A request that arrived just before the fault and waited
 * through it measures the fault, not the baseline.) null when too few requests say.
 */
export function baselineTtftP99(records: readonly RunRecord[], startMs: number, options: BaselineOptions): number | null {
  const from = Math.max(startMs - options.lookbackMs, options.notBeforeMs);
  const ttfts: number[] = [];
  for (const r of records) {
    if (r.arrivalMs < from || r.firstTokenMs === undefined || r.firstTokenMs >= startMs) continue;
    ttfts.push(r.firstTokenMs - r.arrivalMs);
  }
  if (ttfts.length < options.minSamples) return null;
  return percentile(ttfts.sort((a, b) => a - b), 99);
}
