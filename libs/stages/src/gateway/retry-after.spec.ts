import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_AFTER_S, retryAfterSecondsOf } from './retry-after.js';

describe('retryAfterSecondsOf', () => {
  it('rounds the deciding rule\'s estimate up to whole seconds, at least one', () => {
    expect(retryAfterSecondsOf('insufficient_tokens', 2_001)).toBe(3);
    expect(retryAfterSecondsOf('insufficient_tokens', 2_000)).toBe(2);
    expect(retryAfterSecondsOf('api_key_rate_limited', 1)).toBe(1);
    expect(retryAfterSecondsOf('api_key_rate_limited', 0)).toBe(1);
  });

  it('falls back to the default for a 429 or 503 whose rule gave no estimate', () => {
    expect(retryAfterSecondsOf('all_workers_busy')).toBe(DEFAULT_RETRY_AFTER_S);
    expect(retryAfterSecondsOf('flow_capacity')).toBe(DEFAULT_RETRY_AFTER_S);
    expect(retryAfterSecondsOf('ttl_expired')).toBe(DEFAULT_RETRY_AFTER_S);
    expect(retryAfterSecondsOf('insufficient_tokens', Number.POSITIVE_INFINITY)).toBe(DEFAULT_RETRY_AFTER_S);
  });

  it('gives none to answers that are not 429 or 503', () => {
    expect(retryAfterSecondsOf('invalid_request', 5_000)).toBeUndefined();
    expect(retryAfterSecondsOf('timeout')).toBeUndefined();
    expect(retryAfterSecondsOf('internal')).toBeUndefined();
    expect(retryAfterSecondsOf('ok')).toBeUndefined();
  });
});
