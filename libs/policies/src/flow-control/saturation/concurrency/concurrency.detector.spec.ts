import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { instanceView, poolSignals } from '../../../testing/builders.js';
import { isSaturated } from '../../ports.js';
import { CONCURRENCY_DETECTOR, ConcurrencyDetectorParamsSchema, createConcurrencyDetector } from './concurrency.detector.js';

const endpoints = (n: number) => Array.from({ length: n }, (_, i) => instanceView({ instanceId: `i${i}`, queueDepth: 50, kvUtilization: 0.99, snapshotAgeUs: microsFromMillis(10_000) }));
const issuesOf = (params: unknown) => {
  try {
    createConcurrencyDetector(params);
  } catch (error) {
    expect(error).toBeInstanceOf(ZodError);
    return (error as ZodError).issues.map((i) => ({ path: i.path, code: i.code }));
  }
  throw new Error('expected a ZodError');
};

describe('concurrency-detector', () => {
  it('is registered under its name, with defaults: requests mode, 100 per endpoint, no headroom; 65536 in tokens mode', () => {
    expect(createConcurrencyDetector({}).name).toBe(CONCURRENCY_DETECTOR);
    expect(ConcurrencyDetectorParamsSchema.parse({})).toEqual({ concurrencyMode: 'requests', maxConcurrency: 100, headroom: 0 });
    expect(ConcurrencyDetectorParamsSchema.parse({ concurrencyMode: 'tokens' })).toEqual({ concurrencyMode: 'tokens', maxConcurrency: 65_536, headroom: 0 });
    expect(ConcurrencyDetectorParamsSchema.parse({ concurrencyMode: 'tokens', maxConcurrency: 1_000 }).maxConcurrency).toBe(1_000);
  });

  it('requests mode: in-flight requests / (endpoints · maxConcurrency), ignoring tokens and what endpoints report', () => {
    const detector = createConcurrencyDetector({});
    // 2 endpoints · 100: 150 in flight → 0.75; 199 → 0.995; 200 → 1.0 (saturated).
    expect(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 150, inFlightTokens: 1e9 }))).toBe(0.75);
    expect(isSaturated(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 199 })))).toBe(false);
    expect(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 200 }))).toBe(1);
    // Stale, busy-looking snapshots do not matter: 0 in flight is 0.
    expect(detector.saturation(poolSignals({ endpoints: endpoints(3) }))).toBe(0);
  });

  it('headroom lets dispatch go that fraction above the limit', () => {
    const detector = createConcurrencyDetector({ maxConcurrency: 10, headroom: 0.1 });
    // 2 · 10 · 1.1 = 22: 21 → 21/22; 22 → 1.0.
    expect(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 21 }))).toBeCloseTo(21 / 22, 12);
    expect(isSaturated(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 21 })))).toBe(false);
    expect(detector.saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 22 }))).toBe(1);
    // Without headroom 20 is the limit.
    expect(createConcurrencyDetector({ maxConcurrency: 10 }).saturation(poolSignals({ endpoints: endpoints(2), inFlightRequests: 20 }))).toBe(1);
  });

  it('is saturated exactly at the limit, though 100 · (1 + 0.1) is not 110 in floating point', () => {
    // 110 / (1 · 100 · 1.1) computes to 0.9999999999999999: read as is, a 111th request would pass.
    const detector = createConcurrencyDetector({ headroom: 0.1 });
    expect(detector.saturation(poolSignals({ endpoints: endpoints(1), inFlightRequests: 109 }))).toBeCloseTo(109 / 110, 12);
    expect(isSaturated(detector.saturation(poolSignals({ endpoints: endpoints(1), inFlightRequests: 109 })))).toBe(false);
    expect(detector.saturation(poolSignals({ endpoints: endpoints(1), inFlightRequests: 110 }))).toBe(1);
    // The same in tokens mode: 4000 · 1.14 = 4560 tokens.
    const tokens = createConcurrencyDetector({ concurrencyMode: 'tokens', maxConcurrency: 4_000, headroom: 0.14 });
    expect(tokens.saturation(poolSignals({ endpoints: endpoints(1), inFlightTokens: 4_560 }))).toBe(1);
    expect(tokens.saturation(poolSignals({ endpoints: endpoints(1), inFlightTokens: 4_559 }))).toBeLessThan(1);
  });

  it('tokens mode: in-flight tokens / (endpoints · maxConcurrency · (1 + headroom))', () => {
    const byDefault = createConcurrencyDetector({ concurrencyMode: 'tokens' });
    // One endpoint, 65536 tokens: 32768 in flight → 0.5, whatever the request count.
    expect(byDefault.saturation(poolSignals({ endpoints: endpoints(1), inFlightRequests: 10_000, inFlightTokens: 32_768 }))).toBe(0.5);
    const custom = createConcurrencyDetector({ concurrencyMode: 'tokens', maxConcurrency: 4_000, headroom: 0.25 });
    // 4 · 4000 · 1.25 = 20000: 15000 → 0.75; 20000 → 1.
    expect(custom.saturation(poolSignals({ endpoints: endpoints(4), inFlightTokens: 15_000 }))).toBe(0.75);
    expect(custom.saturation(poolSignals({ endpoints: endpoints(4), inFlightTokens: 20_000 }))).toBe(1);
  });

  it('is saturated with no endpoints', () => {
    expect(createConcurrencyDetector({}).saturation(poolSignals({ endpoints: [] }))).toBe(1);
  });

  it('rejects bad params with an error naming the key', () => {
    expect(issuesOf({ maxConcurrency: 0 })).toEqual([{ path: ['maxConcurrency'], code: 'too_small' }]);
    expect(issuesOf({ headroom: -0.1 })).toEqual([{ path: ['headroom'], code: 'too_small' }]);
    expect(issuesOf({ concurrencyMode: 'bytes' })).toEqual([{ path: ['concurrencyMode'], code: 'invalid_value' }]);
    expect(issuesOf({ maxConcurency: 5 })).toEqual([{ path: [], code: 'unrecognized_keys' }]);
    expect(() => createConcurrencyDetector({ maxConcurency: 5 })).toThrow(/maxConcurency/);
  });
});
