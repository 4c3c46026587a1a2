import { microsFromMillis } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KvEventIndex } from '../../kv-index/kv-event-index.js';
import { PrefixIndex } from '../../prefix-index/prefix-index.js';
import { blocksNamed, clusterView, instanceView, policyRequest } from '../../testing/builders.js';
import { createScorerRegistry } from './registry.js';

const HASHES = blocksNamed('h0', 'h1', 'h2', 'h3');

/** Candidates with any signals, including ones out of their nominal range (a bad snapshot). */
const scenario = fc.record({
  candidates: fc.array(
    fc.record({
      queueDepth: fc.nat({ max: 1_000 }),
      batchSize: fc.nat({ max: 256 }),
      inFlight: fc.nat({ max: 100 }),
      kvUtilization: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -1, max: 2, noNaN: true })),
      snapshotAgeUs: fc.oneof(fc.nat({ max: 100_000 }), fc.constant(Number.POSITIVE_INFINITY)).map(microsFromMillis),
      cached: fc.subarray(HASHES),
    }),
    { minLength: 1, maxLength: 10 },
  ),
  withPrefix: fc.boolean(),
  blocks: fc.nat({ max: HASHES.length }),
  /** The length of the array handed in as `out`. */
  outLength: fc.nat({ max: 12 }),
});

/** The Scorer contract, over every registered scorer. */
describe.each(createScorerRegistry().names())('Scorer conformance: %s', (name) => {
  const scorer = createScorerRegistry().create(name, {});

  it('is named by its registry name', () => {
    expect(scorer.name).toBe(name);
  });

  it('gives one score per candidate, each in [0, 1], the same for the same inputs', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const index = new PrefixIndex();
        const kvCache = new KvEventIndex(100, 0);
        const candidates = s.candidates.map(({ cached, ...signals }, i) => {
          index.record(`i${i}`, cached);
          kvCache.receive({ instanceId: `i${i}`, atUs: microsFromMillis(0), stored: cached, removed: [] });
          return instanceView({ instanceId: `i${i}`, ...signals });
        });
        const view = s.withPrefix ? { ...clusterView(candidates, index), kvCache } : clusterView(candidates);
        const request = policyRequest({ blockHashes: HASHES.slice(0, s.blocks) });
        const scores = scorer.score(request, candidates, view);
        expect(scores).toHaveLength(candidates.length);
        for (const score of scores) {
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(1);
        }
        expect(scorer.score(request, candidates, view)).toEqual(scores);
        // Into a reused array, longer or shorter and holding an earlier decision's values: the same scores, in that array.
        const out = Array.from({ length: s.outLength }, () => 0.5);
        expect(scorer.score(request, candidates, view, out)).toBe(out);
        expect(out).toEqual(scores);
      }),
      { numRuns: 300 },
    );
  });

  it('gives an empty list for no candidates', () => {
    expect(scorer.score(policyRequest(), [], clusterView([]))).toEqual([]);
  });
});
