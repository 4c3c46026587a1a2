import { describe, expect, it } from 'vitest';
import { OUTCOME_REASON_NAMES, httpStatusOf, outcomeOf } from './outcomes.js';

describe('outcome reasons', () => {
  it('map to the HTTP statuses of docs/architecture.md', () => {
    expect(httpStatusOf('ok')).toBe(200);
    expect(httpStatusOf('insufficient_tokens')).toBe(429);
    expect(httpStatusOf('rejected_by_policy')).toBe(429);
    expect(httpStatusOf('ttft_over_budget')).toBe(429);
    expect(httpStatusOf('all_workers_busy')).toBe(503);
    expect(httpStatusOf('flow_capacity')).toBe(429);
    expect(httpStatusOf('too_many_flows')).toBe(429);
    expect(httpStatusOf('ttl_expired')).toBe(503);
    expect(httpStatusOf('client_disconnected')).toBe(503);
    expect(httpStatusOf('shutdown')).toBe(500);
    expect(httpStatusOf('internal')).toBe(500);
    expect(httpStatusOf('unservable')).toBe(400);
    expect(httpStatusOf('no_worker')).toBe(503);
    expect(httpStatusOf('timeout')).toBe(504);
  });

  it('put rejections before queueing and evictions after it', () => {
    expect(outcomeOf('flow_capacity')).toBe('rejected');
    expect(outcomeOf('too_many_flows')).toBe('rejected');
    expect(outcomeOf('ttl_expired')).toBe('dropped');
    expect(outcomeOf('client_disconnected')).toBe('dropped');
    expect(outcomeOf('timeout')).toBe('failed');
    expect(outcomeOf('ok')).toBe('completed');
  });

  it('only "ok" completes, and every failure is an HTTP error', () => {
    for (const reason of OUTCOME_REASON_NAMES) {
      if (reason === 'ok') continue;
      expect(outcomeOf(reason)).not.toBe('completed');
      expect(httpStatusOf(reason)).toBeGreaterThanOrEqual(400);
    }
  });
});
