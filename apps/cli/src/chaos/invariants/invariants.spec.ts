import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { clientOutcomesInvariant } from './client-outcomes.invariant.js';
import { deadlineBound, deadlineInvariant } from './deadline.invariant.js';
import { failedShareInvariant } from './failed-share.invariant.js';
import { usageTokensInvariant } from './usage-tokens.invariant.js';

function record(i: number, over: Partial<RunRecord> = {}): RunRecord {
  return { id: `r${i}`, fairnessId: 't', sloClass: 'standard', priority: 3, arrivalMs: i * 100, endMs: i * 100 + 500, outputTokens: 8, usageCompletionTokens: 8, outcome: 'completed', status: 200, attempts: 1, ...over };
}
const records = (n: number) => Array.from({ length: n }, (_, i) => record(i));

describe('client outcomes invariant', () => {
  it('holds when every generated request ended once', () => {
    expect(clientOutcomesInvariant(records(4), 4)).toMatchObject({ status: 'pass', details: ['4 of 4 requests ended, each once'] });
  });

  it('fails on a request that never ended, a missing one, a double', () => {
    const open = [...records(3), record(3, { outcome: 'in_flight', endMs: undefined })];
    expect(clientOutcomesInvariant(open, 4)).toMatchObject({ status: 'fail', details: ['1 requests never ended: r3'] });
    expect(clientOutcomesInvariant(records(3), 4).details).toEqual(['3 records for 4 requests']);
    expect(clientOutcomesInvariant([...records(2), record(1)], 3).details).toEqual(['1 request ids recorded twice']);
  });
});

describe('usage tokens invariant', () => {
  it('compares the tokens of completed streams with their usage, and ignores streams that failed', () => {
    const ok = [...records(3), record(3, { outcome: 'failed', reason: 'worker_lost', outputTokens: 3, usageCompletionTokens: undefined })];
    expect(usageTokensInvariant(ok)).toMatchObject({ status: 'pass', details: ['3 completed streams: tokens received = usage.completion_tokens'] });
    const bad = [...records(2), record(2, { outputTokens: 7 }), record(3, { usageCompletionTokens: undefined })];
    expect(usageTokensInvariant(bad)).toMatchObject({ status: 'fail', details: ['2 of 4 completed streams differ: r2 got 7, usage 8, r3 got 8, usage missing'] });
  });
});

describe('deadline invariant', () => {
  const limits = { requestTimeoutMs: 2_000, marginMs: 500, retryBackoffCapMs: 5_000 };

  it('allows the timeout plus the margin per attempt, plus the backoffs between', () => {
    expect(deadlineBound(1, limits)).toBe(2_500);
    expect(deadlineBound(3, limits)).toBe(3 * 2_500 + 2 * 5_000);
  });

  it('fails a request that lasted longer, naming it', () => {
    expect(deadlineInvariant([record(0, { endMs: 2_500 })], limits).status).toBe('pass');
    const late = deadlineInvariant([record(0, { endMs: 2_501, outcome: 'failed', reason: 'timeout' }), record(1, { arrivalMs: 0, endMs: 9_000, attempts: 2 })], limits);
    expect(late).toMatchObject({ status: 'fail', details: ['longest request 9000 ms; deadline 2000 ms + 500 ms margin', '1 outlived it: r0 2501 ms > 2500 ms'] });
  });
});

describe('failed share invariant', () => {
  it('counts failed and dropped, not rejected, against the tolerance', () => {
    const mixed = [...records(16), record(16, { outcome: 'failed', reason: 'worker_lost' }), record(17, { outcome: 'dropped', reason: 'shutdown' }), record(18, { outcome: 'rejected', reason: 'flow_capacity' }), record(19, { outcome: 'rejected', reason: 'flow_capacity' })];
    expect(failedShareInvariant(mixed, 0.1)).toMatchObject({ status: 'pass', details: ['failed 1 + dropped 1 of 20 = 10.0% ≤ 10.0%'] });
    expect(failedShareInvariant(mixed, 0.05)).toMatchObject({ status: 'fail', details: ['failed 1 + dropped 1 of 20 = 10.0% > 5.0%'] });
    expect(failedShareInvariant([], 0).status).toBe('pass');
  });
});
