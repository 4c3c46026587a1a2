import { microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { instanceView, poolSignals } from '../../../testing/builders.js';
import { UTILIZATION_DETECTOR, UtilizationDetectorParamsSchema, createUtilizationDetector } from './utilization.detector.js';

const endpoint = (instanceId: string, queueDepth: number, kvUtilization: number, snapshotAgeMs = 50) =>
  instanceView({ instanceId, queueDepth, kvUtilization, snapshotAgeUs: microsFromMillis(snapshotAgeMs) });
/** Dispatch times, in ms before now, as the µs the detector reads. */
const agoUs = (...agoMs: number[]) => agoMs.map((ms) => ms * 1_000);
const issuesOf = (params: unknown) => {
  try {
    createUtilizationDetector(params);
  } catch (error) {
    expect(error).toBeInstanceOf(ZodError);
    return (error as ZodError).issues.map((i) => ({ path: i.path, code: i.code }));
  }
  throw new Error('expected a ZodError');
};

describe('utilization-detector', () => {
  const detector = createUtilizationDetector({});

  it('is registered under its Endpoint Picker name, with its defaults 5, 0.8 and 200 ms', () => {
    expect(detector.name).toBe(UTILIZATION_DETECTOR);
    expect(UtilizationDetectorParamsSchema.parse({})).toEqual({ queueDepthThreshold: 5, kvCacheUtilThreshold: 0.8, metricsStalenessThreshold: 200 });
  });

  it('scores one endpoint as max(queueDepth/5, kv/0.8)', () => {
    // queueDepth 2, kv 0.2: max(0.4, 0.25) = 0.4.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 2, 0.2)] }))).toBeCloseTo(0.4, 12);
    // queueDepth 1, kv 0.6: max(0.2, 0.75) = 0.75 (the cache is the binding signal).
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 1, 0.6)] }))).toBeCloseTo(0.75, 12);
    // Exactly at a threshold is saturated: queueDepth 5 → 1.0; kv 0.8 → 1.0.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 5, 0)] }))).toBe(1);
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0.8)] }))).toBe(1);
  });

  it('averages the endpoints’ scores', () => {
    // (0.4 + 0.75) / 2 = 0.575.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 2, 0.2), endpoint('b', 1, 0.6)] }))).toBeCloseTo(0.575, 12);
    // One overloaded endpoint (queueDepth 15 → 3) and two idle: 3 / 3 = 1.0, saturated.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 15, 0.1), endpoint('b', 0, 0), endpoint('c', 0, 0)] }))).toBe(1);
  });

  it('is saturated when the exact average is 1, though the floating-point sum falls a hair short', () => {
    // (6/5 + 7/5 + 2/5) / 3 = 1 exactly, but sums to 0.9999999999999999 in floating point.
    const reading = detector.saturation(poolSignals({ endpoints: [endpoint('a', 6, 0), endpoint('b', 7, 0), endpoint('c', 2, 0)] }));
    expect(reading).toBe(1);
    // One request fewer is clearly below.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 6, 0), endpoint('b', 6, 0), endpoint('c', 2, 0)] }))).toBeCloseTo(14 / 15, 12);
  });

  it('scores an endpoint with a stale snapshot (older than 200 ms) as 1, whatever it reported', () => {
    // At the threshold the snapshot still counts: 200 ms old, queueDepth 2 → 0.4.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 2, 0.2, 200)] }))).toBeCloseTo(0.4, 12);
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 2, 0.2, 201)] }))).toBe(1);
    // Idle but stale: 1; never reported (age Infinity): 1.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0, 5_000)] }))).toBe(1);
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0, Number.POSITIVE_INFINITY)] }))).toBe(1);
    // One stale (1) and one fresh idle (0): 0.5.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0, 300), endpoint('b', 0, 0, 20)] }))).toBe(0.5);
  });

  it('adds the dispatches its snapshot cannot show yet to queue depth, spread over the endpoints', () => {
    // Two idle endpoints, snapshots 50 ms old; 4 dispatches in the last 50 ms (and one 80 ms ago,
    // which the snapshots already show): 2 unseen per endpoint → 2/5 = 0.4 each → 0.4.
    const dispatchedAgoUs = agoUs(0, 10, 30, 50, 80);
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0), endpoint('b', 0, 0)], dispatchedAgoUs }))).toBeCloseTo(0.4, 12);
    // Each endpoint counts by its own snapshot's age: a at 10 ms sees 2 unseen → 1/5; b at 100 ms
    // sees all 5 → 2.5/5 = 0.5; average 0.35.
    expect(
      detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0, 10), endpoint('b', 0, 0, 100)], dispatchedAgoUs })),
    ).toBeCloseTo(0.35, 12);
    // Unseen dispatches add to queue depth, not to the KV score: queueDepth 1 + 2 unseen → 3/5 = 0.6
    // against kv 0.4/0.8 = 0.5.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 1, 0.4)], dispatchedAgoUs: agoUs(0, 5) }))).toBeCloseTo(0.6, 12);
    // A burst is stopped before the next snapshot: 5 dispatches since a 0-depth snapshot saturate one endpoint.
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0)], dispatchedAgoUs: agoUs(1, 2, 3, 4, 5) }))).toBe(1);
  });

  it('leaves out the requests dispatched since the snapshot that are already done: they are no load', () => {
    // One idle endpoint, snapshot 50 ms old: 5 dispatches since would saturate it; 4 of them are done → 1/5.
    const dispatchedAgoUs = agoUs(1, 2, 3, 4, 5);
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0)], dispatchedAgoUs, doneAgoUs: agoUs(2, 3, 4, 5) }))).toBeCloseTo(0.2, 12);
  });

  it('reads the in-flight books not at all (that is the concurrency detector)', () => {
    expect(detector.saturation(poolSignals({ endpoints: [endpoint('a', 0, 0)], inFlightRequests: 1_000, inFlightTokens: 1e9 }))).toBe(0);
  });

  it('takes its thresholds from params, the staleness as a Go duration or milliseconds', () => {
    const custom = createUtilizationDetector({ queueDepthThreshold: 10, kvCacheUtilThreshold: 0.5, metricsStalenessThreshold: '1s' });
    // max(4/10, 0.3/0.5) = 0.6; a 900 ms old snapshot is fresh under 1 s.
    expect(custom.saturation(poolSignals({ endpoints: [endpoint('a', 4, 0.3, 900)] }))).toBeCloseTo(0.6, 12);
    expect(custom.saturation(poolSignals({ endpoints: [endpoint('a', 4, 0.3, 1_001)] }))).toBe(1);
    expect(UtilizationDetectorParamsSchema.parse({ metricsStalenessThreshold: 350 }).metricsStalenessThreshold).toBe(350);
  });

  it('rejects bad params with an error naming the key', () => {
    expect(issuesOf({ queueDepthThreshold: 0 })).toEqual([{ path: ['queueDepthThreshold'], code: 'too_small' }]);
    expect(issuesOf({ kvCacheUtilThreshold: 1.2 })).toEqual([{ path: ['kvCacheUtilThreshold'], code: 'too_big' }]);
    expect(issuesOf({ kvCacheUtilThreshold: 0 })).toEqual([{ path: ['kvCacheUtilThreshold'], code: 'too_small' }]);
    expect(issuesOf({ metricsStalenessThreshold: 'soon' })).toEqual([{ path: ['metricsStalenessThreshold'], code: 'custom' }]);
    expect(issuesOf({ queueDepthTreshold: 3 })).toEqual([{ path: [], code: 'unrecognized_keys' }]);
    expect(() => createUtilizationDetector({ queueDepthTreshold: 3 })).toThrow(/queueDepthTreshold/);
  });
});
