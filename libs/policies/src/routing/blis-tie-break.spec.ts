import { micros } from '@sluice/contracts';
import { seededRandom } from '@sluice/collections';
import { describe, expect, it } from 'vitest';
import { clusterView, instanceView, policyRequest } from '../testing/builders.js';
import { blisTieBreak } from './blis-tie-break.js';
import { createLeastLoaded } from './least-loaded/least-loaded.policy.js';
import { createWeighted } from './weighted/weighted.policy.js';

/**
 * Go 1.19.8: rand.New(rand.NewSource(42 ^ fnv1a64("router"))), 20 × Intn(3) =
 * 0 1 2 0 2 2 0 2 2 0 1 1 1 1 2 0 0 1 2 1 (libs/collections go-rand.spec.ts prints the source).
 */
const GO_INTN3_SEED42 = [0, 1, 2, 0, 2, 2, 0, 2, 2, 0, 1, 1, 1, 1, 2, 0, 0, 1, 2, 1];

const threeTied = clusterView(['a', 'b', 'c'].map((instanceId) => instanceView({ instanceId, batchSize: 2 })));
const ids = ['a', 'b', 'c'];

describe('blisTieBreak: BLIS’s tie-breaks, Go math/rand seeded with seed XOR fnv1a64("router")', () => {
  it('least-loaded picks tied[rng.Intn(3)] as BLIS does, decision after decision', () => {
    const policy = createLeastLoaded({}, { random: seededRandom(1), tieBreak: blisTieBreak(42) });
    const picks = GO_INTN3_SEED42.map(() => policy.route(policyRequest(), threeTied, micros(0))!.instance.instanceId);
    expect(picks).toEqual(GO_INTN3_SEED42.map((i) => ids[i]));
  });

  it('weighted draws from the same stream, only when there is a tie', () => {
    const policy = createWeighted({ weights: 'queue-depth:1' }, { random: seededRandom(1), tieBreak: blisTieBreak(42) });
    const untied = clusterView([instanceView({ instanceId: 'a', batchSize: 1 }), instanceView({ instanceId: 'b', batchSize: 3 })]);
    expect(policy.route(policyRequest(), untied, micros(0))!.instance.instanceId).toBe('a'); // no draw
    const picks = GO_INTN3_SEED42.slice(0, 5).map(() => policy.route(policyRequest(), threeTied, micros(0))!.instance.instanceId);
    expect(picks).toEqual(GO_INTN3_SEED42.slice(0, 5).map((i) => ids[i]));
  });

  it('without it, ties still come from the seeded random source (the default is unchanged)', () => {
    const a = createLeastLoaded({}, { random: seededRandom(7) });
    const b = createLeastLoaded({}, { random: seededRandom(7) });
    const run = (p: typeof a) => Array.from({ length: 10 }, () => p.route(policyRequest(), threeTied, micros(0))!.instance.instanceId);
    expect(run(a)).toEqual(run(b));
  });
});
