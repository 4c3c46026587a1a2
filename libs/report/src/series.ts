import type { Outcome, RunRecord } from '@sluice/metrics';

/**
 * The plot series of a run, computed from its records. Pure functions. Times on the x axis are
 * seconds since the run started (the records' ms / 1000); latencies are ms.
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Series {
  readonly name: string;
  readonly points: readonly Point[];
}

/** A time interval in ms; [startMs, endMs). */
export interface Interval {
  readonly startMs: number;
  readonly endMs: number;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Groups values by a key, keys in the given order (default: string order). */
function groupSorted<T, V>(items: readonly T[], key: (t: T) => string | undefined, value: (t: T) => V | undefined, order = byName): [string, V[]][] {
  const groups = new Map<string, V[]>();
  for (const item of items) {
    const k = key(item);
    const v = value(item);
    if (k === undefined || v === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(v);
    else groups.set(k, [v]);
  }
  return [...groups.entries()].sort(([a], [b]) => order(a, b));
}

/**
 * The empirical CDF of samples as a step series: (min, 0), then for each distinct value v,
 * (v, fraction of samples ≤ v). Empty samples give no points.
 */
export function cdf(samples: readonly number[]): Point[] {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return [];
  const points: Point[] = [{ x: sorted[0]!, y: 0 }];
  for (let i = 0; i < n; i++) {
    const v = sorted[i]!;
    if (i + 1 < n && sorted[i + 1] === v) continue; // ties: keep the last rank
    points.push({ x: v, y: (i + 1) / n });
  }
  return points;
}

/** TTFT (firstTokenMs − arrivalMs, as in libs/metrics: any outcome that got a first token) CDF, one series per SLO class. */
export function ttftCdfBySloClass(records: readonly RunRecord[]): Series[] {
  const groups = groupSorted(
    records,
    (r) => r.sloClass,
    (r) => (r.firstTokenMs === undefined ? undefined : r.firstTokenMs - r.arrivalMs),
  );
  return groups.map(([name, samples]) => ({ name, points: cdf(samples) }));
}

/**
 * Latency against arrival time, as points: TTFT of every request that got a first token, E2E of
 * completed requests (the same samples as the summary). x: arrival (s), y: latency (ms).
 */
export function latencyOverTime(records: readonly RunRecord[]): Series[] {
  const sorted = [...records].sort((a, b) => a.arrivalMs - b.arrivalMs);
  const ttft: Point[] = [];
  const e2e: Point[] = [];
  for (const r of sorted) {
    const x = r.arrivalMs / 1000;
    if (r.firstTokenMs !== undefined) ttft.push({ x, y: r.firstTokenMs - r.arrivalMs });
    if (r.outcome === 'completed' && r.endMs !== undefined) e2e.push({ x, y: r.endMs - r.arrivalMs });
  }
  return [
    { name: 'TTFT', points: ttft },
    { name: 'E2E', points: e2e },
  ].filter((s) => s.points.length > 0);
}

const OUTCOME_ORDER: readonly Outcome[] = ['completed', 'rejected', 'dropped', 'failed', 'in_flight'];

/**
 * Requests ending per second, one series per outcome that occurs: the point (s, n) means n
 * requests of that outcome ended in [s, s + 1) seconds. Every series covers the same seconds,
 * 0 up to the last ending second, plus a closing (last + 1, 0) so a step line ends at 0.
 * Requests without `endMs` (in flight) are not counted.
 */
export function outcomesPerSecond(records: readonly RunRecord[]): Series[] {
  const ended = records.filter((r) => r.endMs !== undefined);
  if (ended.length === 0) return [];
  // A loop, not Math.max(...spread): a spread of a million arguments overflows the stack.
  let lastSecond = -Infinity;
  for (const r of ended) lastSecond = Math.max(lastSecond, Math.floor(r.endMs! / 1000));
  const counts = new Map<Outcome, number[]>();
  for (const r of ended) {
    let perSecond = counts.get(r.outcome);
    if (!perSecond) counts.set(r.outcome, (perSecond = new Array<number>(lastSecond + 2).fill(0)));
    const s = Math.max(0, Math.floor(r.endMs! / 1000));
    perSecond[s] = perSecond[s]! + 1;
  }
  return OUTCOME_ORDER.filter((o) => counts.has(o)).map((o) => ({ name: o, points: counts.get(o)!.map((y, x) => ({ x, y })) }));
}

/**
 * How many intervals are open over time, as a step series: (t, n) means n intervals are open from t
 * until the next point's time. An interval counts over [startMs, endMs); simultaneous starts and
 * ends are netted into one point, and points where the count does not change are left out. Empty
 * intervals (end ≤ start) never count. x in seconds.
 */
export function concurrency(intervals: readonly Interval[]): Point[] {
  const deltas = new Map<number, number>();
  for (const { startMs, endMs } of intervals) {
    if (!(endMs > startMs)) continue;
    deltas.set(startMs, (deltas.get(startMs) ?? 0) + 1);
    deltas.set(endMs, (deltas.get(endMs) ?? 0) - 1);
  }
  const points: Point[] = [];
  let open = 0;
  for (const [t, d] of [...deltas.entries()].sort(([a], [b]) => a - b)) {
    if (d === 0) continue;
    open += d;
    points.push({ x: t / 1000, y: open });
  }
  return points;
}

/**
 * The interval a completed request spent at its worker. The client sees no worker-side start time,
 * so it is approximated as arrival + the stages before the worker (admission + flow queue +
 * routing; a missing timing counts as 0) up to the request's end. It includes the network hops,
 * so it can start a little early.
 */
export function workerInterval(r: RunRecord): Interval | undefined {
  if (r.outcome !== 'completed' || r.endMs === undefined || r.instance === undefined) return undefined;
  const t = r.timings ?? {};
  return { startMs: r.arrivalMs + (t.admissionMs ?? 0) + (t.flowQueueMs ?? 0) + (t.routingMs ?? 0), endMs: r.endMs };
}

/** Requests being served per worker instance over time (step series, one per instance). */
export function loadPerWorker(records: readonly RunRecord[]): Series[] {
  return groupSorted(records, (r) => r.instance, workerInterval)
    .map(([name, intervals]) => ({ name, points: concurrency(intervals) }))
    .filter((s) => s.points.length > 0);
}

/**
 * The interval a completed request waited in flow control: [arrival + admission, + flow queue].
 * Only completed requests carry timings, so requests rejected or dropped from the queue are not
 * counted: the queue sizes shown are a lower bound.
 */
export function flowQueueInterval(r: RunRecord): Interval | undefined {
  if (r.outcome !== 'completed' || r.timings?.flowQueueMs === undefined) return undefined;
  const startMs = r.arrivalMs + (r.timings.admissionMs ?? 0);
  return { startMs, endMs: startMs + r.timings.flowQueueMs };
}

/** Requests waiting in flow control per priority band over time (step series, one per band that ever queued). */
export function queuePerPriority(records: readonly RunRecord[]): Series[] {
  return groupSorted(records, (r) => String(r.priority), flowQueueInterval, (a, b) => Number(a) - Number(b))
    .map(([band, intervals]) => ({ name: `priority ${band}`, points: concurrency(intervals) }))
    .filter((s) => s.points.length > 0);
}
