import { percentile, type RunRecord } from '@sluice/metrics';

/**
 * The client's lag above which the report warns: p99 over 10 ms. Live latencies count from each
 * request's scheduled send, so a late client shows up in them; 10 ms is about the p99 of what
 * sluice's whole control plane adds to a request at 1 000/s (docs/benchmarks.md, live path: 10.5
 * ms), so past it a reader comparing tails would partly be comparing the client's.
 */
export const CLIENT_LAG_WARN_P99_MS = 10;

/**
 * How far behind its schedule the load client sent the requests (each record's `clientLagMs`:
 * actual send − scheduled send of the first attempt). The report's latencies already include it
 * (they count from the schedule); this says how much of them is the client's own.
 */
export interface ClientLagSection {
  /** Records that carried a lag (every request a live run sent). */
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Set when p99 is over CLIENT_LAG_WARN_P99_MS: what it means for the latencies. */
  readonly warning?: string;
}

/** The lag over a run's records; undefined when none carries one (a twin run, an older report). */
export function clientLagSection(records: readonly RunRecord[]): ClientLagSection | undefined {
  const lags = records.flatMap((r) => (r.clientLagMs === undefined ? [] : [r.clientLagMs])).sort((a, b) => a - b);
  if (lags.length === 0) return undefined;
  const p99Ms = percentile(lags, 99)!;
  const section = { requests: lags.length, p50Ms: percentile(lags, 50)!, p99Ms, maxMs: lags.at(-1)! };
  if (p99Ms <= CLIENT_LAG_WARN_P99_MS) return section;
  return {
    ...section,
    warning:
      `the load client sent 1% of the requests more than ${p99Ms.toFixed(1)} ms after their scheduled time (max ${section.maxMs.toFixed(1)} ms): ` +
      'the latencies count from the schedule and include that lag; a client on a less busy machine, or a lower rate, would measure the server alone',
  };
}
