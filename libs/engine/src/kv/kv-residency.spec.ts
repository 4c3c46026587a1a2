import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { EngineRequest } from '../engine.types.js';
import type { LatencyModel } from '../latency/latency-model.js';
import { VllmEngine } from '../vllm.engine.js';
import { KvCache } from './kv-cache.js';
import { KvResidency } from './kv-residency.js';

/** Every block sampled. */
const always = () => 0;

function cacheAt(residency: KvResidency, totalBlocks: number) {
  const kv = new KvCache(totalBlocks, residency);
  return { kv, at: (us: number) => residency.at(micros(us)) };
}

describe('KvResidency', () => {
  it('reports a block allocated at t1 and evicted at t2: lifetime and idle time t2 − t1, no reuse gap', () => {
    const residency = new KvResidency(1, always);
    const { kv, at } = cacheAt(residency, 1);
    at(1_000);
    kv.release(kv.allocate(1));
    expect(residency.drain()).toBeUndefined();
    at(4_500);
    kv.allocate(1); // the only block, taken again: its first life ends
    expect(residency.drain()).toEqual({ lifetimesUs: [3_500], idleUs: [3_500], reuseGapsUs: [] });
    expect(residency.drain()).toBeUndefined();
  });

  it('counts idle time from the last prefix-cache hit, and the gaps between consecutive hits', () => {
    const residency = new KvResidency(1, always);
    const { kv, at } = cacheAt(residency, 1);
    at(0);
    const [block] = kv.allocate(1) as [number];
    kv.register(block, 77);
    kv.release([block]);
    for (const t of [1_000, 3_000, 7_000]) {
      at(t);
      kv.claim([block]);
      kv.release([block]);
    }
    at(10_000);
    kv.allocate(1);
    expect(residency.drain()).toEqual({ lifetimesUs: [10_000], idleUs: [3_000], reuseGapsUs: [2_000, 4_000] });
  });

  it('keeps the four most recent accesses of a block, so at most three gaps', () => {
    const residency = new KvResidency(1, always);
    const { kv, at } = cacheAt(residency, 1);
    at(0);
    const [block] = kv.allocate(1) as [number];
    kv.register(block, 5);
    kv.release([block]);
    for (const t of [10, 20, 40, 80, 160, 320]) {
      at(t);
      kv.claim([block]);
      kv.release([block]);
    }
    at(1_000);
    kv.allocate(1);
    expect(residency.drain()?.reuseGapsUs).toEqual([40, 80, 160]);
  });

  it('follows only the blocks its random source picks, and draws again for each new life', () => {
    // Draws: block 0 picked (0.1), block 1 not (0.9); at the re-allocation, block 0 (now 1's
    // first) is evicted and not picked again (0.9), block 1 picked (0.1).
    const draws = [0.1, 0.9, 0.9, 0.1];
    const residency = new KvResidency(0.5, () => draws.shift()!);
    const { kv, at } = cacheAt(residency, 2);
    at(0);
    kv.release(kv.allocate(2));
    expect(residency.trackedBlocks).toBe(1);
    at(100);
    kv.allocate(2);
    expect(residency.drain()).toEqual({ lifetimesUs: [100], idleUs: [100], reuseGapsUs: [] });
    expect(residency.trackedBlocks).toBe(1);
  });

  it('refuses a sample outside (0, 1]', () => {
    for (const bad of [0, -0.1, 1.5, Number.NaN]) expect(() => new KvResidency(bad, always)).toThrow(RangeError);
  });
});

describe('VllmEngine: KV block residency', () => {
  const model: LatencyModel = { name: 'fixed', queueingDelayUs: () => micros(0), stepTimeUs: () => micros(1000), outputTokenDelayUs: () => micros(0) };
  const request = (id: string, hashBase: number): EngineRequest => ({ id, inputTokens: 64, maxTokens: 1, priority: 0, blockHashes: [hashBase, hashBase + 1, hashBase + 2, hashBase + 3] });

  it('reports, in the step that evicts them, the residency of blocks an earlier request filled', () => {
    // 4 blocks. a fills all four in its prefill at 0 and finishes there; b (other hashes) needs
    // all four at 5 ms: each of a's blocks lived 5 ms, idle all along.
    const engine = new VllmEngine({ model, totalKvBlocks: 4, maxModelLen: 4096, kvResidencySample: 1, random: always });
    engine.enqueue(request('a', 100), micros(0));
    expect(engine.step(micros(0)).kvResidency).toBeUndefined();
    engine.enqueue(request('b', 200), micros(5_000));
    const step = engine.step(micros(5_000));
    expect(step.kvResidency).toEqual({ lifetimesUs: [5_000, 5_000, 5_000, 5_000], idleUs: [5_000, 5_000, 5_000, 5_000], reuseGapsUs: [] });
  });

  it('measures nothing without a sample, and refuses a sample outside [0, 1] or without a random source', () => {
    const engine = new VllmEngine({ model, totalKvBlocks: 4, maxModelLen: 4096 });
    engine.enqueue(request('a', 100), micros(0));
    engine.step(micros(0));
    engine.enqueue(request('b', 200), micros(5_000));
    expect(engine.step(micros(5_000)).kvResidency).toBeUndefined();
    expect(() => new VllmEngine({ model, totalKvBlocks: 4, maxModelLen: 4096, kvResidencySample: 2, random: always })).toThrow(RangeError);
    expect(() => new VllmEngine({ model, totalKvBlocks: 4, maxModelLen: 4096, kvResidencySample: 0.5 })).toThrow(RangeError);
  });
});
