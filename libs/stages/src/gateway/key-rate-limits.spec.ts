import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { micros } from '@sluice/contracts';
import { KeyRateLimits } from './key-rate-limits.js';

describe('KeyRateLimits', () => {
  const rate = { requestsPerSecond: 2, burst: 3 };

  it('takes a burst at once, then refuses with the wait until the next request', () => {
    const limits = new KeyRateLimits();
    const at = micros(10_000_000);
    expect([1, 2, 3].map(() => limits.take('a', rate, at).ok)).toEqual([true, true, true]);
    expect(limits.take('a', rate, at)).toEqual({ ok: false, retryAfterMs: 500 });
    // 250 ms later half a request has come back: 250 ms more to wait.
    expect(limits.take('a', rate, micros(10_250_000))).toEqual({ ok: false, retryAfterMs: 250 });
    expect(limits.take('a', rate, micros(10_500_000)).ok).toBe(true);
  });

  it('keeps one bucket per key', () => {
    const limits = new KeyRateLimits();
    const at = micros(0);
    for (let i = 0; i < 3; i++) limits.take('a', rate, at);
    expect(limits.take('a', rate, at).ok).toBe(false);
    expect(limits.take('b', rate, at).ok).toBe(true);
  });

  it('refills no more than the burst after a long quiet spell, and nothing when the clock steps back', () => {
    const limits = new KeyRateLimits();
    limits.take('a', rate, micros(5_000_000));
    const later = micros(5_000_000 + 3_600_000_000);
    expect([1, 2, 3, 4].map(() => limits.take('a', rate, later).ok)).toEqual([true, true, true, false]);
    expect(limits.take('a', rate, micros(5_000_000)).ok).toBe(false);
  });

  it('never lets more through over a window than the burst plus the rate times the window', () => {
    fc.assert(
      fc.property(
        fc.record({ requestsPerSecond: fc.double({ min: 0.1, max: 1_000, noNaN: true }), burst: fc.integer({ min: 1, max: 100 }) }),
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 300 }),
        (limit, gapsUs) => {
          const limits = new KeyRateLimits();
          let nowUs = 1_000_000;
          let taken = 0;
          for (const gap of gapsUs) {
            nowUs += gap;
            if (limits.take('k', limit, micros(nowUs)).ok) taken++;
          }
          const windowS = (nowUs - 1_000_000) / 1e6;
          return taken <= limit.burst + limit.requestsPerSecond * windowS + 1e-9;
        },
      ),
      { numRuns: 500 },
    );
  });
});
