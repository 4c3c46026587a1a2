import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterView, instanceView, policyRequest } from '../testing/builders.js';
import { argMaxRandomTie, effectiveLoad, negativeLoads, negativeLoadsInto, rankedDecision, rankOrder, routingCandidates } from './decision.js';

const never = () => {
  throw new Error('random drawn without a tie');
};

describe('effectiveLoad and routingCandidates', () => {
  it('effective load is queueDepth + batchSize + inFlight, nothing else', () => {
    expect(effectiveLoad(instanceView({ instanceId: 'a', queueDepth: 3, batchSize: 5, inFlight: 2, kvUtilization: 0.9, activePrefillTokens: 1e6 }))).toBe(10);
    expect(effectiveLoad(instanceView({ instanceId: 'a' }))).toBe(0);
  });

  it('candidates are the instances serving the model, in view order', () => {
    const view = clusterView([
      instanceView({ instanceId: 'a', model: 'm1' }),
      instanceView({ instanceId: 'b', model: 'm2' }),
      instanceView({ instanceId: 'c', model: 'm1' }),
    ]);
    expect(routingCandidates(policyRequest({ model: 'm1' }), view).map((i) => i.instanceId)).toEqual(['a', 'c']);
    expect(routingCandidates(policyRequest({ model: 'm3' }), view)).toEqual([]);
  });

  it('an idle instance scores +0, not −0', () => {
    expect(Object.is(negativeLoads([0])[0], 0)).toBe(true);
    expect([...negativeLoads([0, 4])]).toEqual([0, -4]);
  });

  it('negativeLoadsInto writes −effective load into the array it is given, grown or shrunk to the candidates', () => {
    const out = [7, 7, 7];
    const two = [instanceView({ instanceId: 'a', queueDepth: 0, batchSize: 0, inFlight: 0 }), instanceView({ instanceId: 'b', queueDepth: 1, batchSize: 2, inFlight: 3 })];
    expect(negativeLoadsInto(two, out)).toBe(out);
    expect(out).toEqual([0, -6]);
    expect(Object.is(out[0], 0)).toBe(true);
    negativeLoadsInto([...two, ...two], out);
    expect(out).toEqual([0, -6, 0, -6]);
    expect(out.every((_, i) => i in out)).toBe(true); // no holes
  });
});

describe('argMaxRandomTie', () => {
  it('picks the largest without drawing when it is unique', () => {
    expect(argMaxRandomTie([1, 5, 3], never)).toBe(1);
    expect(argMaxRandomTie([-4, -2, -9], never)).toBe(1);
    expect(argMaxRandomTie([7], never)).toBe(0);
  });

  it('draws once among exact ties, by position among them', () => {
    const values = [2, 5, 1, 5, 5];
    let draws = 0;
    const at = (x: number) => () => (draws++, x);
    expect(argMaxRandomTie(values, at(0))).toBe(1);
    expect(argMaxRandomTie(values, at(0.34))).toBe(3);
    expect(argMaxRandomTie(values, at(0.99))).toBe(4);
    expect(argMaxRandomTie(values, at(1))).toBe(4); // out of contract, still a tie
    expect(draws).toBe(4);
  });

  it('ignores NaN, and answers 0 for nothing to pick', () => {
    expect(argMaxRandomTie([Number.NaN, 1, Number.NaN], never)).toBe(1);
    expect(argMaxRandomTie([], never)).toBe(0);
    expect(argMaxRandomTie([Number.NaN], never)).toBe(0);
    expect(argMaxRandomTie([Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY], () => 0.9)).toBe(1);
  });
});

describe('rankedDecision', () => {
  const candidates = ['a', 'b', 'c', 'd'].map((instanceId, i) => instanceView({ instanceId, inFlight: i + 1 }));

  it('top(k) is the first k of the full ranking, ties, NaN and the chosen one included, without building it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(0, 0.5, 1, Number.NaN), fc.double({ min: -5, max: 5, noNaN: true })), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.nat({ max: 35 }),
        (scores, chosenSeed, k) => {
          const many = scores.map((_, i) => instanceView({ instanceId: `i${i}` }));
          const chosen = chosenSeed % scores.length;
          const lazy = rankedDecision(many, scores, chosen).top(k).map((r) => r.instanceId);
          const full = rankedDecision(many, scores, chosen).ranked.slice(0, k).map((r) => r.instanceId);
          expect(lazy).toEqual(full);
        },
      ),
    );
  });

  it('ranks best first; ties: the chosen one first, then view order', () => {
    const decision = rankedDecision(candidates, [0.5, 0.9, 0.5, 0.5], 2);
    expect(decision.ranked.map((r) => r.instanceId)).toEqual(['b', 'c', 'a', 'd']);
    expect(decision.instance.instanceId).toBe('c');
    expect(decision.regret).toBeCloseTo(0.4, 12);
    expect(decision.ranked[0]).toEqual({ instanceId: 'b', score: 0.9, effectiveLoad: 2 });
  });

  it('regret is 0 when the chosen one ties the best, and it is ranked first', () => {
    const decision = rankedDecision(candidates, [1, 3, 3, 0], 2);
    expect(decision.ranked.map((r) => r.instanceId)).toEqual(['c', 'b', 'a', 'd']);
    expect(decision.regret).toBe(0);
  });

  it('carries per-scorer scores when given', () => {
    const decision = rankedDecision(candidates.slice(0, 2), [0.2, 0.1], 0, (i) => ({ s: i }));
    expect(decision.ranked).toEqual([
      { instanceId: 'a', score: 0.2, effectiveLoad: 1, scores: { s: 0 } },
      { instanceId: 'b', score: 0.1, effectiveLoad: 2, scores: { s: 1 } },
    ]);
  });
});

describe('rankedDecision: lazy ranking', () => {
  it('computes regret at once but ranks only on the first read of `ranked`, then keeps the list', () => {
    const candidates = ['a', 'b', 'c'].map((instanceId) => instanceView({ instanceId }));
    let calls = 0;
    const decision = rankedDecision(candidates, [0.1, 0.7, 0.4], 0, (i) => (calls++, { s: i }));
    expect(decision.regret).toBeCloseTo(0.6, 12);
    expect(calls).toBe(0);
    const ranked = decision.ranked;
    expect(ranked.map((r) => r.instanceId)).toEqual(['b', 'c', 'a']);
    expect(calls).toBe(3);
    expect(decision.ranked).toBe(ranked);
    expect(calls).toBe(3);
    expect(JSON.parse(JSON.stringify(decision)).ranked).toHaveLength(3); // serialises like a plain field
  });
});

describe('rankOrder', () => {
  /** The reference: a comparator sort, ties by the chosen one first, then index. */
  const reference = (scores: number[], chosen: number) => {
    const key = (i: number) => (Number.isNaN(scores[i]!) ? Number.NEGATIVE_INFINITY : scores[i]!);
    return scores.map((_, i) => i).sort((a, b) => key(b) - key(a) || (a === chosen ? -1 : b === chosen ? 1 : a - b));
  };

  it('matches a comparator sort on any scores: ties (integers), NaN and infinities included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -8, max: 0 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(Number.NaN, -Infinity, Infinity)), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.nat(),
        (scores, pick) => {
          const chosen = pick % scores.length;
          expect([...rankOrder(scores, chosen)]).toEqual(reference(scores, chosen));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('handles 1 000 candidates with few distinct scores', () => {
    const scores = Array.from({ length: 1_000 }, (_, i) => -((i * 7) % 13));
    expect([...rankOrder(scores, 500)]).toEqual(reference(scores, 500));
  });
});
