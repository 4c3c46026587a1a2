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
    // The gateway's own refusals: keys, rates and limits.
    expect(httpStatusOf('invalid_api_key')).toBe(401);
    expect(httpStatusOf('api_key_rate_limited')).toBe(429);
    expect(httpStatusOf('body_too_large')).toBe(413);
    expect(httpStatusOf('prompt_too_long')).toBe(400);
    expect(httpStatusOf('max_tokens_too_large')).toBe(400);
    expect(httpStatusOf('stream_too_long')).toBe(504);
  });

  it('put rejections before queueing and evictions after it', () => {
    expect(outcomeOf('flow_capacity')).toBe('rejected');
    expect(outcomeOf('too_many_flows')).toBe('rejected');
    expect(outcomeOf('ttl_expired')).toBe('dropped');
    expect(outcomeOf('client_disconnected')).toBe('dropped');
    expect(outcomeOf('invalid_api_key')).toBe('rejected');
    expect(outcomeOf('stream_too_long')).toBe('dropped');
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
