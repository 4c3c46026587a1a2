import { percentile, type RunRecord } from '@sluice/metrics';
import type { Point, Series } from './series.js';

/**
 * Series for a chaos run's timeline, one point per second of the run (x in seconds since the
 * start, as in series.ts), each second [s, s + 1). Pure functions.
 */

/** The last second any of `times` (ms) falls in, or -1 when there are none. A loop: no spread of a million arguments. */
function lastSecond(times: Iterable<number>): number {
  let last = -1;
  for (const t of times) last = Math.max(last, Math.floor(t / 1000));
  return last;
}

/**
 * Output tokens the client received in each second, over every request (whatever its outcome:
 * tokens streamed before a failure were delivered), plus a closing 0 so a step line ends.
 */
export function tokensPerSecond(records: readonly RunRecord[]): Series[] {
  const times = records.flatMap((r) => r.tokenTimesMs ?? []);
  const last = lastSecond(times);
  if (last < 0) return [];
  const counts = new Array<number>(last + 2).fill(0);
  for (const t of times) counts[Math.max(0, Math.floor(t / 1000))]!++;
  return [{ name: 'output tokens/s', points: counts.map((y, x) => ({ x, y })) }];
}

/**
 * TTFT p99 (linear interpolation, as libs/metrics) of the requests arriving in each second that
 * got a first token, and the same for p50. A second without such a request has no point.
 */
export function ttftPercentilesPerSecond(records: readonly RunRecord[]): Series[] {
  const bySecond = new Map<number, number[]>();
  for (const r of records) {
    if (r.firstTokenMs === undefined) continue;
    const s = Math.max(0, Math.floor(r.arrivalMs / 1000));
    const list = bySecond.get(s);
    if (list) list.push(r.firstTokenMs - r.arrivalMs);
    else bySecond.set(s, [r.firstTokenMs - r.arrivalMs]);
  }
  const seconds = [...bySecond.keys()].sort((a, b) => a - b);
  const at = (p: number): Point[] =>
    seconds.map((s) => ({ x: s, y: percentile(bySecond.get(s)!.sort((a, b) => a - b), p)! }));
  return seconds.length === 0
    ? []
    : [
        { name: 'TTFT p99', points: at(99) },
        { name: 'TTFT p50', points: at(50) },
      ];
}
