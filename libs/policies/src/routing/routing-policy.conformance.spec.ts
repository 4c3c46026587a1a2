import { micros, microsFromMillis } from '@sluice/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterView, PolicyRequest } from '../cluster-view.js';
import { PrefixIndex } from '../prefix-index/prefix-index.js';
import { seededRandom } from '@sluice/collections';
import { blocksNamed, clusterView, instanceView, policyRequest } from '../testing/builders.js';
import { effectiveLoad } from './decision.js';
import { createRoutingRegistry } from './registry.js';
import type { RoutingDecision } from './routing-policy.js';

const MODEL = 'qwen3-14b';
const HASHES = blocksNamed('h0', 'h1', 'h2', 'h3', 'h4', 'h5');

/**
 * Views with colliding loads (so ties happen), two models, stale and never-refreshed snapshots,
 * and a prefix index that holds random runs of a small hash alphabet; requests over the same
 * alphabet, so prefix matches of every length occur.
 */
const scenario = fc.record({
  instances: fc.array(
    fc.record({
      model: fc.constantFrom(MODEL, MODEL, 'llama-3-8b'),
      queueDepth: fc.nat({ max: 6 }),
      batchSize: fc.nat({ max: 6 }),
      inFlight: fc.nat({ max: 4 }),
      kvUtilization: fc.constantFrom(0, 0.25, 0.5, 1),
      snapshotAgeUs: fc.oneof(fc.nat({ max: 200 }), fc.constant(60_000), fc.constant(Number.POSITIVE_INFINITY)).map(microsFromMillis),
      cached: fc.subarray(HASHES),
    }),
    { maxLength: 8 },
  ),
  withPrefix: fc.boolean(),
  requests: fc.array(fc.record({ model: fc.constantFrom(MODEL, MODEL, MODEL, 'llama-3-8b', 'unknown'), blocks: fc.nat({ max: HASHES.length }) }), {
    minLength: 1,
    maxLength: 6,
  }),
  seed: fc.nat(),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

const build = (s: Scenario): { view: ClusterView; requests: PolicyRequest[] } => {
  const index = new PrefixIndex();
  const instances = s.instances.map(({ cached, ...signals }, i) => {
    index.record(`i${i}`, cached);
    return instanceView({ instanceId: `i${i}`, ...signals });
  });
  return {
    view: clusterView(instances, s.withPrefix ? index : undefined),
    requests: s.requests.map((r, i) => policyRequest({ id: `r${i}`, model: r.model, blockHashes: HASHES.slice(0, r.blocks) })),
  };
};

/** The RoutingPolicy contract, over every registered policy with its default parameters. */
describe.each(createRoutingRegistry().names())('RoutingPolicy conformance: %s', (name) => {
  const create = (seed: number) => createRoutingRegistry().create(name, {}, { random: seededRandom(seed) });

  it('is named by its registry name', () => {
    expect(create(1).name).toBe(name);
  });

  it('returns null with no instances, or only instances of other models', () => {
    const policy = create(1);
    expect(policy.route(policyRequest(), clusterView([]), micros(0))).toBeNull();
    const others = clusterView([instanceView({ instanceId: 'a', model: 'llama-3-8b' }), instanceView({ instanceId: 'b', model: 'mistral-7b' })]);
    expect(policy.route(policyRequest({ model: MODEL }), others, micros(0))).toBeNull();
  });

  it('chooses a candidate of the model, ranks every candidate once best first, and its regret is best − chosen ≥ 0', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { view, requests } = build(s);
        const policy = create(s.seed);
        for (const request of requests) {
          const candidates = view.instances.filter((i) => i.model === request.model);
          const decision = policy.route(request, view, micros(1_000));
          if (candidates.length === 0) {
            expect(decision).toBeNull();
            continue;
          }
          expect(decision).not.toBeNull();
          const { instance, ranked, regret } = decision!;
          expect(candidates).toContain(instance);

          expect(ranked.map((r) => r.instanceId).sort()).toEqual(candidates.map((c) => c.instanceId).sort());
          for (const r of ranked) {
            expect(Number.isFinite(r.score)).toBe(true);
            expect(r.effectiveLoad).toBe(effectiveLoad(candidates.find((c) => c.instanceId === r.instanceId)!));
          }
          for (let k = 1; k < ranked.length; k++) expect(ranked[k]!.score).toBeLessThanOrEqual(ranked[k - 1]!.score);

          // Ties: the chosen one first, then view order.
          const position = (id: string) => candidates.findIndex((c) => c.instanceId === id);
          for (let k = 1; k < ranked.length; k++) {
            if (ranked[k]!.score !== ranked[k - 1]!.score) continue;
            expect(ranked[k]!.instanceId).not.toBe(instance.instanceId);
            if (ranked[k - 1]!.instanceId !== instance.instanceId) expect(position(ranked[k]!.instanceId)).toBeGreaterThan(position(ranked[k - 1]!.instanceId));
          }

          const chosen = ranked.find((r) => r.instanceId === instance.instanceId)!;
          expect(regret).toBeGreaterThanOrEqual(0);
          expect(regret).toBe(ranked[0]!.score - chosen.score);
          if (regret === 0) expect(ranked[0]!.instanceId).toBe(instance.instanceId);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same seed and the same views give the same decisions', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { view, requests } = build(s);
        // The decision's data (its `top` method is compared through `ranked`).
        const run = (): (Omit<RoutingDecision, 'top'> | null)[] => {
          const policy = create(s.seed);
          // Each ranking read before the next route(), as RoutingDecision asks.
          return requests.map((r) => {
            const d = policy.route(r, view, micros(1_000));
            return d && { instance: d.instance, regret: d.regret, ranked: d.ranked };
          });
        };
        expect(run()).toEqual(run());
      }),
      { numRuns: 100 },
    );
  });

  it('a ranking read after the next route() is the one it would have been, or a clear error: never another', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { view, requests } = build(s);
        const [first, second] = requests;
        fc.pre(first !== undefined && second !== undefined);
        const atOnce = create(s.seed).route(first, view, micros(1_000));
        const policy = create(s.seed);
        const late = policy.route(first, view, micros(1_000));
        policy.route(second, view, micros(1_000));
        expect(late === null).toBe(atOnce === null);
        if (!atOnce || !late) return;
        expect(late.instance).toEqual(atOnce.instance);
        expect(late.regret).toBe(atOnce.regret);
        const expected = atOnce.ranked;
        let ranked: readonly unknown[] | undefined;
        try {
          ranked = late.ranked;
        } catch (error) {
          expect(String(error)).toMatch(/read after the policy routed another request/);
          expect(() => late.top(1)).toThrow(/before the next route\(\)/);
        }
        if (ranked) expect(ranked).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('does not change the view it is given', () => {
    const index = new PrefixIndex();
    index.record('i0', blocksNamed('h0', 'h1'));
    const view = clusterView([instanceView({ instanceId: 'i0', queueDepth: 3 }), instanceView({ instanceId: 'i1', inFlight: 1 })], index);
    const before = structuredClone(view.instances);
    create(3).route(policyRequest({ blockHashes: blocksNamed('h0', 'h1', 'h2') }), view, micros(0));
    expect(view.instances).toEqual(before);
    expect(index.matchedBlocks('i0', blocksNamed('h0', 'h1'))).toBe(2);
  });
});
