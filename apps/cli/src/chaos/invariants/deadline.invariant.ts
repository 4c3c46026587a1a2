import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';
import { sample } from './client-outcomes.invariant.js';

export interface DeadlineLimits {
  /** gateway.requestTimeoutMs: the gateway ends a request with 504 by then. */
  readonly requestTimeoutMs: number;
  /**
   * Slack for what lies outside the gateway's timer: the connection, the 504 crossing two event
   * loops, a timer that fires late on a busy machine.
   */
  readonly marginMs: number;
  /** The longest backoff before a retry (the load client's cap), for requests retried on 503. */
  readonly retryBackoffCapMs: number;
}

/** How long the client may see a request last: each attempt its deadline plus slack, plus the backoffs between. */
export function deadlineBound(attempts: number, limits: DeadlineLimits): number {
  return attempts * (limits.requestTimeoutMs + limits.marginMs) + (attempts - 1) * limits.retryBackoffCapMs;
}

/**
 * (d) No request outlived its deadline: arrival to end, as the client saw it, within the
 * gateway's request timeout plus a margin (per attempt, for retried requests).
 */
export function deadlineInvariant(records: readonly RunRecord[], limits: DeadlineLimits): InvariantResult {
  let longest = 0;
  const late: string[] = [];
  for (const r of records) {
    if (r.endMs === undefined) continue;
    const duration = r.endMs - r.arrivalMs;
    longest = Math.max(longest, duration);
    const bound = deadlineBound(r.attempts, limits);
    if (duration > bound) late.push(`${r.id} ${duration.toFixed(0)} ms > ${bound} ms`);
  }
  const details = [`longest request ${longest.toFixed(0)} ms; deadline ${limits.requestTimeoutMs} ms + ${limits.marginMs} ms margin`];
  if (late.length > 0) details.push(`${late.length} outlived it: ${sample(late)}`);
  return { id: 'deadline', title: 'no request outlived its deadline (gateway.requestTimeoutMs + margin)', status: late.length === 0 ? 'pass' : 'fail', details };
}
