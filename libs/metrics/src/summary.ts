import { cacheHits, type CacheHits } from './cache-hits.js';
import { summarize, summarizeInPlace, type LatencyStats } from './percentile.js';
import { goodput, type Goodput } from './goodput.js';
import { e2eSamples, itlSamples, tpotSamples, ttftSamples } from './samples.js';
import { throughput, type RunWindow, type Throughput } from './throughput.js';
import type { RequestRecord } from './types.js';

/** The statistics of one set of requests (the whole run, one SLO class or one tenant). Latencies in ms. */
export interface Summary {
  readonly requests: number;
  readonly completed: number;
  /** Output tokens of completed requests. */
  readonly outputTokens: number;
  readonly ttft: LatencyStats;
  readonly itl: LatencyStats;
  /** Per-request TPOT (mean gap after the first token) of completed requests with two tokens or more. */
  readonly tpot: LatencyStats;
  readonly e2e: LatencyStats;
  readonly throughput: Throughput;
  /** Requests that met their targets, per second and as a share (docs/behaviour.md §5). */
  readonly goodput: Goodput;
  /** The prefix caches' share of the completed requests (absent from reports written before it was recorded). */
  readonly cache?: CacheHits;
}

export function summarizeRecords(records: readonly RequestRecord[], window: RunWindow): Summary {
  let completed = 0;
  let outputTokens = 0;
  for (const r of records) {
    if (r.outcome !== 'completed') continue;
    completed++;
    outputTokens += r.outputTokens;
  }
  return {
    requests: records.length,
    completed,
    outputTokens,
    ttft: summarize(ttftSamples(records)),
    // A fresh typed array, summarized in place: the pooled gaps are the largest sample set by far.
    itl: summarizeInPlace(itlSamples(records)),
    tpot: summarize(tpotSamples(records)),
    e2e: summarize(e2eSamples(records)),
    throughput: throughput(records, window),
    goodput: goodput(records, window),
    cache: cacheHits(records),
  };
}

/** Groups records by a key; the groups come out with their keys in sorted order. */
export function groupBy(records: readonly RequestRecord[], key: (r: RequestRecord) => string): Map<string, RequestRecord[]> {
  const groups = new Map<string, RequestRecord[]>();
  for (const r of records) {
    const k = key(r);
    const list = groups.get(k);
    if (list) list.push(r);
    else groups.set(k, [r]);
  }
  return new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One summary per group, as a plain object keyed by group name (sorted). */
export function summarizeBy(records: readonly RequestRecord[], key: (r: RequestRecord) => string, window: RunWindow): Record<string, Summary> {
  const out: Record<string, Summary> = {};
  for (const [k, group] of groupBy(records, key)) out[k] = summarizeRecords(group, window);
  return out;
}
