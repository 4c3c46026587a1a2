import { microsFromMillis } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instanceView, poolSignals } from '../../testing/builders.js';
import { isSaturated } from '../ports.js';
import { createFlowControlRegistry } from '../registry.js';

/** A pool's load, fresh or stale snapshots, with what this controller has in flight. */
const load = fc.record({
  endpoints: fc.array(
    fc.record({
      queueDepth: fc.nat({ max: 40 }),
      kvUtilization: fc.double({ min: 0, max: 1, noNaN: true }),
      snapshotAgeUs: fc.oneof(fc.nat({ max: 200 }), fc.nat({ max: 5_000 }), fc.constant(Number.POSITIVE_INFINITY)).map(microsFromMillis),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  inFlightRequests: fc.nat({ max: 2_000 }),
  inFlightTokens: fc.nat({ max: 10_000_000 }),
  dispatchedAgoUs: fc.array(fc.nat({ max: 1_000 }), { maxLength: 30 }),
});
type Load = typeof load extends fc.Arbitrary<infer L> ? L : never;

/** More of everything that is load: deeper queues, fuller caches, more in flight, more recent dispatches. */
const more = fc.record({
  queueDepth: fc.array(fc.nat({ max: 20 }), { minLength: 6, maxLength: 6 }),
  kvUtilization: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
  inFlightRequests: fc.nat({ max: 500 }),
  inFlightTokens: fc.nat({ max: 1_000_000 }),
  dispatchedAgoUs: fc.array(fc.nat({ max: 1_000 }), { maxLength: 20 }),
});
type More = typeof more extends fc.Arbitrary<infer M> ? M : never;

const signalsOf = (l: Load) =>
  poolSignals({
    endpoints: l.endpoints.map((e, i) => instanceView({ instanceId: `i${i}`, ...e })),
    inFlightRequests: l.inFlightRequests,
    inFlightTokens: l.inFlightTokens,
    dispatchedAgoUs: l.dispatchedAgoUs,
  });
const heavier = (l: Load, m: More): Load => ({
  endpoints: l.endpoints.map((e, i) => ({
    ...e,
    queueDepth: e.queueDepth + m.queueDepth[i]!,
    kvUtilization: Math.min(1, e.kvUtilization + m.kvUtilization[i]! * (1 - e.kvUtilization)),
  })),
  inFlightRequests: l.inFlightRequests + m.inFlightRequests,
  inFlightTokens: l.inFlightTokens + m.inFlightTokens,
  dispatchedAgoUs: [...l.dispatchedAgoUs, ...m.dispatchedAgoUs],
});

/** The SaturationDetector contract, over every registered detector with its default parameters. */
describe.each(createFlowControlRegistry().saturation.names())('SaturationDetector conformance: %s', (name) => {
  const detector = createFlowControlRegistry().saturation.create(name, {});

  it('is named by its registry name', () => {
    expect(detector.name).toBe(name);
  });

  it('is saturated with no endpoints: there is nowhere to send work', () => {
    expect(isSaturated(detector.saturation(poolSignals({ endpoints: [] })))).toBe(true);
    expect(isSaturated(detector.saturation(poolSignals({ endpoints: [], inFlightRequests: 0, inFlightTokens: 0 })))).toBe(true);
  });

  it('reads 0 (not saturated) for idle endpoints with fresh snapshots', () => {
    for (const count of [1, 2, 8]) {
      const endpoints = Array.from({ length: count }, (_, i) => instanceView({ instanceId: `i${i}`, snapshotAgeUs: microsFromMillis(10) }));
      const reading = detector.saturation(poolSignals({ endpoints }));
      expect(reading).toBe(0);
      expect(isSaturated(reading)).toBe(false);
    }
  });

  it('reads a finite, non-negative number for any load', () => {
    fc.assert(
      fc.property(load, (l) => {
        const reading = detector.saturation(signalsOf(l));
        expect(Number.isFinite(reading)).toBe(true);
        expect(reading).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('is monotone: more load never lowers saturation', () => {
    fc.assert(
      fc.property(load, more, (l, m) => {
        const base = detector.saturation(signalsOf(l));
        const heavy = detector.saturation(signalsOf(heavier(l, m)));
        expect(heavy).toBeGreaterThanOrEqual(base - 1e-12);
      }),
      { numRuns: 300 },
    );
  });
});
