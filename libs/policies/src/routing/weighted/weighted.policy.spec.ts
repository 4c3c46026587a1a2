import { micros, microsFromMillis } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import type { ClusterView, PolicyRequest } from '../../cluster-view.js';
import { PrefixIndex } from '../../prefix-index/prefix-index.js';
import { seededRandom } from '@sluice/collections';
import { blocksNamed, clusterView, instanceView, instanceViews, policyRequest } from '../../testing/builders.js';
import { createWeighted, WeightedParamsSchema } from './weighted.policy.js';

const blocks = (n: number, tag = 'p') => blocksNamed(...Array.from({ length: n }, (_, i) => `${tag}${i}`));
const weighted = (params: unknown = {}, seed = 1) => createWeighted(params, { random: seededRandom(seed) });
const route = (view: ClusterView, request: PolicyRequest = policyRequest(), params: unknown = {}, seed = 1) => weighted(params, seed).route(request, view, micros(0))!;

describe('weighted', () => {
  describe('with the default weights (prefix-affinity:3, queue-depth:2, kv-utilization:2)', () => {
    // `holder` has the request's prompt cached but is busier; `idle` has nothing cached.
    const holder = instanceView({ instanceId: 'holder', queueDepth: 1, batchSize: 2, kvUtilization: 0.2 }); // load 3
    const idle = instanceView({ instanceId: 'idle' });
    const index = new PrefixIndex();
    index.record('holder', blocks(64));

    it('picks the prefix holder over an idle instance when the prefix is long', () => {
      const decision = route(clusterView([idle, holder], index), policyRequest({ blockHashes: blocks(64) }));
      // holder: (3·64/64 + 2·0 + 2·0.8) / 7 = 4.6/7; idle: (0 + 2·1 + 2·1) / 7 = 4/7.
      expect(decision.instance.instanceId).toBe('holder');
      expect(decision.regret).toBe(0);
      expect(decision.ranked.map((r) => r.instanceId)).toEqual(['holder', 'idle']);
      expect(decision.ranked[0]!.score).toBeCloseTo(4.6 / 7, 12);
      expect(decision.ranked[1]!.score).toBeCloseTo(4 / 7, 12);
      expect(decision.ranked[0]!.scores).toEqual({ 'prefix-affinity': 1, 'queue-depth': 0, 'kv-utilization': 0.8 });
      expect(decision.ranked[1]!.scores).toEqual({ 'prefix-affinity': 0, 'queue-depth': 1, 'kv-utilization': 1 });
      expect(decision.ranked.map((r) => r.effectiveLoad)).toEqual([3, 0]);
    });

    it('picks the idle instance when the cached prefix is short (8 of 64 blocks)', () => {
      const request = policyRequest({ blockHashes: [...blocks(8), ...blocks(56, 'other')] });
      const decision = route(clusterView([idle, holder], index), request);
      // holder: (3·0.125 + 0 + 1.6) / 7 = 1.975/7 < idle 4/7.
      expect(decision.instance.instanceId).toBe('idle');
      expect(decision.ranked[1]!.score).toBeCloseTo(1.975 / 7, 12);
    });

    it('picks the idle instance when nothing is cached, or the view has no prefix index', () => {
      expect(route(clusterView([holder, idle], index), policyRequest({ blockHashes: blocks(64, 'new') })).instance.instanceId).toBe('idle');
      expect(route(clusterView([holder, idle]), policyRequest({ blockHashes: blocks(64) })).instance.instanceId).toBe('idle');
      expect(route(clusterView([holder, idle], index), policyRequest({ blockHashes: [] })).instance.instanceId).toBe('idle');
    });

    it('three candidates: min-max queue-depth puts the middle one at 0.5', () => {
      const view = clusterView(
        [
          instanceView({ instanceId: 'holder', queueDepth: 2, kvUtilization: 0.3 }),
          instanceView({ instanceId: 'idle', kvUtilization: 0.1 }),
          instanceView({ instanceId: 'busy', batchSize: 4, kvUtilization: 0.5 }),
        ],
        index,
      );
      const decision = route(view, policyRequest({ blockHashes: blocks(64) }));
      expect(decision.ranked.map((r) => [r.instanceId, r.scores!['queue-depth']])).toEqual([
        ['holder', 0.5],
        ['idle', 1],
        ['busy', 0],
      ]);
      // (3 + 2·0.5 + 2·0.7)/7, (0 + 2 + 2·0.9)/7, (0 + 0 + 2·0.5)/7
      expect(decision.ranked.map((r) => r.score)).toEqual([5.4 / 7, 3.8 / 7, 1 / 7].map((x) => expect.closeTo(x, 12)));
    });
  });

  describe('reuses its score arrays from one decision to the next', () => {
    const index = new PrefixIndex();
    index.record('a', blocks(64));
    const view = clusterView([instanceView({ instanceId: 'a', queueDepth: 4 }), instanceView({ instanceId: 'b' }), instanceView({ instanceId: 'c', kvUtilization: 0.5 })], index);
    const toA = policyRequest({ blockHashes: blocks(64) });
    const fresh = policyRequest({ blockHashes: blocks(64, 'new') });

    it('a ranking read before the next route() stays as it was read', () => {
      const policy = weighted();
      const first = policy.route(toA, view, micros(0))!;
      const ranked = first.ranked;
      const top = first.top(2);
      policy.route(fresh, view, micros(0));
      expect(first.ranked).toBe(ranked);
      expect(first.top(2)).toEqual(top);
      expect(ranked.map((r) => r.instanceId)).toEqual(['a', 'b', 'c']);
      expect(ranked[0]!.scores!['prefix-affinity']).toBe(1);
    });

    it('one first read after it throws, naming what to do; the choice and regret stay', () => {
      const policy = weighted();
      const first = policy.route(toA, view, micros(0))!;
      policy.route(fresh, view, micros(0));
      expect(first.instance.instanceId).toBe('a');
      expect(first.regret).toBe(0);
      expect(() => first.top(1)).toThrow(/read ranked or top\(k\) before the next route\(\)/);
      expect(() => first.ranked).toThrow(/routed another request/);
    });

    it('a smaller pool after a larger one: no score of the larger is left in the ranking', () => {
      const policy = weighted();
      policy.route(toA, view, micros(0));
      const small = policy.route(toA, clusterView([instanceView({ instanceId: 'b' })], index), micros(0))!;
      expect(small.ranked.map((r) => [r.instanceId, r.scores])).toEqual([['b', { 'prefix-affinity': 0, 'queue-depth': 1, 'kv-utilization': 1 }]]);
    });
  });

  it('breaks exact ties with the seeded random: both tied instances over many seeds, the busier never', () => {
    const view = clusterView([instanceView({ instanceId: 'a' }), instanceView({ instanceId: 'busy', queueDepth: 1 }), instanceView({ instanceId: 'b' })]);
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 200; seed++) {
      const id = route(view, policyRequest(), {}, seed).instance.instanceId;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.get('busy')).toBeUndefined();
    expect(counts.get('a')).toBeGreaterThan(60);
    expect(counts.get('b')).toBeGreaterThan(60);
  });

  it('its regret is always 0: it picks the argmax', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ queueDepth: fc.nat({ max: 9 }), inFlight: fc.nat({ max: 3 }), kvUtilization: fc.constantFrom(0, 0.5, 1), cached: fc.nat({ max: 8 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(),
        (specs, seed) => {
          const index = new PrefixIndex();
          specs.forEach((s, i) => index.record(`i${i}`, blocks(s.cached)));
          const view = clusterView(
            specs.map(({ cached: _cached, ...s }, i) => instanceView({ instanceId: `i${i}`, ...s })),
            index,
          );
          const decision = route(view, policyRequest({ blockHashes: blocks(8) }), {}, seed);
          expect(decision.regret).toBe(0);
          expect(decision.ranked[0]!.instanceId).toBe(decision.instance.instanceId);
          for (const r of decision.ranked) {
            expect(r.score).toBeGreaterThanOrEqual(0);
            expect(r.score).toBeLessThanOrEqual(1 + 1e-12);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads signals as they are: stale snapshots are not filtered, never-refreshed ones read 0', () => {
    const view = clusterView([
      instanceView({ instanceId: 'fresh', kvUtilization: 0.9, queueDepth: 2, snapshotAgeUs: microsFromMillis(10) }),
      instanceView({ instanceId: 'stale', kvUtilization: 0.1, snapshotAgeUs: microsFromMillis(120_000) }),
      instanceView({ instanceId: 'new', kvUtilization: 0, snapshotAgeUs: microsFromMillis(Number.POSITIVE_INFINITY), inFlight: 1 }),
    ]);
    const decision = route(view);
    // stale: (0 + 2·1 + 2·0.9)/7 = 3.8/7; new: (0 + 2·0.5 + 2·1)/7 = 3/7; fresh: (0 + 0 + 2·0.1)/7.
    expect(decision.ranked.map((r) => r.instanceId)).toEqual(['stale', 'new', 'fresh']);
    expect(decision.ranked.map((r) => r.score)).toEqual([3.8 / 7, 3 / 7, 0.2 / 7].map((x) => expect.closeTo(x, 12)));
  });

  it('one candidate: every min-max scorer reads 1', () => {
    const decision = route(clusterView([instanceView({ instanceId: 'only', queueDepth: 40, kvUtilization: 0.5 })]));
    expect(decision.ranked[0]!.scores).toEqual({ 'prefix-affinity': 0, 'queue-depth': 1, 'kv-utilization': 0.5 });
    expect(decision.ranked[0]!.score).toBeCloseTo(3 / 7, 12);
  });

  it('runs only the scorers with a positive weight, and normalises by their sum', () => {
    const view = clusterView(instanceViews(3, (i) => ({ inFlight: i })));
    const decision = route(view, policyRequest(), { weights: 'load-balance:2,queue-depth:0' });
    expect(decision.ranked.map((r) => r.scores)).toEqual([{ 'load-balance': 1 }, { 'load-balance': 0.5 }, { 'load-balance': 1 / 3 }]);
    expect(decision.ranked.map((r) => r.score)).toEqual([1, 0.5, 1 / 3]);
  });

  it('queue-depth alone behaves like least-loaded', () => {
    const view = clusterView(instanceViews(5, (i) => ({ queueDepth: (i * 3) % 5, inFlight: 1 })));
    expect(route(view, policyRequest(), { weights: { 'queue-depth': 1 } }).instance.instanceId).toBe('i0');
  });

  it('sums scorers in a fixed order: weights listed in any order give bit-identical scores', () => {
    const index = new PrefixIndex();
    index.record('i1', blocks(3));
    const view = clusterView(instanceViews(4, (i) => ({ queueDepth: i, kvUtilization: i / 7 })), index);
    const request = policyRequest({ blockHashes: blocks(7) });
    const a = route(view, request, { weights: 'prefix-affinity:3,queue-depth:2,kv-utilization:2,load-balance:1.3' });
    const b = route(view, request, { weights: { 'load-balance': 1.3, 'kv-utilization': 2, 'queue-depth': 2, 'prefix-affinity': 3 } });
    expect(b?.ranked).toEqual(a?.ranked);
    expect(b?.instance).toBe(a?.instance);
  });

  it('params: the default, and the string and object forms, parse alike', () => {
    const parsed = WeightedParamsSchema.parse({});
    expect(parsed).toEqual({ weights: { 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 } });
    expect(WeightedParamsSchema.parse({ weights: 'prefix-affinity:3, queue-depth:2, kv-utilization:2' })).toEqual(parsed);
    expect(WeightedParamsSchema.parse({ weights: { 'kv-utilization': 2, 'prefix-affinity': 3, 'queue-depth': 2 } })).toEqual(parsed);
  });

  it('params: errors carry the path of the bad key and name the problem', () => {
    const issues = (params: unknown) => {
      const result = WeightedParamsSchema.safeParse(params);
      expect(result.success).toBe(false);
      return result.error!.issues.map((i) => ({ path: i.path, message: i.message }));
    };
    expect(issues({ weights: { 'prefix-afinity': 3 } })).toEqual([
      { path: ['weights', 'prefix-afinity'], message: 'unknown scorer "prefix-afinity"; allowed: prefix-affinity, queue-depth, kv-utilization, load-balance, precise-prefix-cache' },
    ]);
    expect(issues({ weights: 'queue-depth:-1' })).toEqual([{ path: ['weights'], message: 'the weight of "queue-depth" must be a non-negative finite number, got "-1"' }]);
    expect(issues({ weights: 42 })[0]!.path).toEqual(['weights']);
    expect(() => weighted({ weights: 'queue-depth:0' })).toThrow(ZodError);
  });
});

describe('weighted, BLIS parity mode (deps.compat)', () => {
  // prefix-affinity:2, queue-depth:1, kv-utilization:1 → factors 0.5, 0.25, 0.25; no prefix cached.
  // x: queue 0, batch 6, kv 0.2; y: queue 1, batch 0, kv 0.1.
  const x = instanceView({ instanceId: 'x', queueDepth: 0, batchSize: 6, kvUtilization: 0.2 });
  const y = instanceView({ instanceId: 'y', queueDepth: 1, batchSize: 0, kvUtilization: 0.1 });
  const params = { weights: 'prefix-affinity:2,queue-depth:1,kv-utilization:1' };
  const decide = (deps: Parameters<typeof createWeighted>[1]) => createWeighted(params, deps).route(policyRequest({ blockHashes: blocks(4) }), clusterView([x, y], new PrefixIndex()), micros(0))!;

  it("scores queue depth on the queue alone, as BLIS does: x 0.25·1 + 0.25·0.8 = 0.45 beats y 0 + 0.25·0.9 = 0.225", () => {
    const decision = decide({ random: seededRandom(1), compat: 'blis' });
    expect(decision.instance.instanceId).toBe('x');
    expect(decision.ranked.map((r) => r.score)).toEqual([0.45, 0.225]);
  });

  it('by default scores effective load (x 6, y 1): x 0 + 0.25·0.8 = 0.2 loses to y 0.25·1 + 0.25·0.9 = 0.475', () => {
    const decision = decide({ random: seededRandom(1) });
    expect(decision.instance.instanceId).toBe('y');
    expect(decision.ranked[0]!.score).toBeCloseTo(0.475, 15);
    expect(decision.ranked[1]!.score).toBeCloseTo(0.2, 15);
  });
});
