import type { RunRecord } from '@sluice/metrics';
import { ttftOf } from './ttft-baseline.js';

/** The gateway's migration counter, total over reasons, as polled during the run (run clock). */
export interface CounterPoint {
  readonly tMs: number;
  readonly value: number;
}

export interface DetectionInput {
  /** The fault's actual start. */
  readonly startMs: number;
  /** Evidence after this belongs to the next fault (its start), or the run is over. */
  readonly untilMs: number;
  readonly records: readonly RunRecord[];
  readonly migrations: readonly CounterPoint[];
  /**
   * A first token later than this, or a stream silent this long between two tokens, counts as an
   * effect (1.5 × the pre-fault TTFT p99); null without a baseline.
   */
  readonly slowTtftMs: number | null;
}

export interface Detection {
  readonly atMs: number;
  readonly signal: string;
}

/**
 * When the fault first became visible from outside the cluster, the earliest of:
 * - a request ended failed or dropped (a 5xx, a broken stream), at the time the client saw it end;
 * - the gateway's `sluice_migrations_total` rose, at the first poll that saw it (polls are every
 *   few hundred ms, so this signal is late by up to one poll interval, never early);
 * - a request's first token was later than `slowTtftMs`, at the moment the client had waited that
 *   long (arrival + slowTtftMs), whether the token came later or never. Rejections (429s) are
 *   the system declining load, not an effect, and are not counted;
 * - a stream went silent for longer than `slowTtftMs` between two tokens (or between its last
 *   token and a failure), at the moment it had been silent that long: a stream frozen on a dead
 *   or paused worker shows here long before it is migrated. The same threshold as the first
 *   token's, so a normal gap (a decode step, a few ms) never counts.
 * Only evidence in [start, until) counts: after `until` it belongs to the next fault. A latency
 * spike that would have happened anyway also counts; the 1.5 × p99 threshold keeps that rare.
 * null when nothing was seen.
 */
export function detect(input: DetectionInput): Detection | null {
  const { startMs, untilMs } = input;
  const within = (t: number) => t >= startMs && t < untilMs;
  let best: Detection | null = null;
  const consider = (atMs: number, signal: string) => {
    if (within(atMs) && (best === null || atMs < best.atMs)) best = { atMs, signal };
  };
  for (const r of input.records) {
    if ((r.outcome === 'failed' || r.outcome === 'dropped') && r.endMs !== undefined) consider(r.endMs, `request ${r.outcome} (${r.reason ?? 'unspecified'})`);
    if (input.slowTtftMs === null || r.outcome === 'rejected') continue;
    const ttft = ttftOf(r);
    if (ttft === undefined || ttft > input.slowTtftMs) consider(r.arrivalMs + input.slowTtftMs, `first token later than ${input.slowTtftMs.toFixed(0)} ms`);
    const stall = firstStall(r, input.slowTtftMs, startMs);
    if (stall !== undefined) consider(stall, `a stream stalled for more than ${input.slowTtftMs.toFixed(0)} ms`);
  }
  for (let i = 1; i < input.migrations.length; i++) {
    const point = input.migrations[i]!;
    // A fall is a gateway started again from 0, not a migration.
    if (point.value > input.migrations[i - 1]!.value) consider(point.tMs, 'gateway migrated a request');
  }
  return best;
}

/** When the stream's first silence longer than `limitMs` at or after `fromMs` became visible (its last token + limit). */
function firstStall(r: RunRecord, limitMs: number, fromMs: number): number | undefined {
  const times = r.tokenTimesMs ?? [];
  const ends = r.outcome !== 'completed' && r.endMs !== undefined && times.length > 0 ? [...times, r.endMs] : times;
  for (let i = 1; i < ends.length; i++) {
    const visibleAt = ends[i - 1]! + limitMs;
    if (ends[i]! - ends[i - 1]! > limitMs && visibleAt >= fromMs) return visibleAt;
  }
  return undefined;
}
