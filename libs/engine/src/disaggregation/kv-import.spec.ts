import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { EngineRequest, StepResult } from '../engine.types.js';
import { KvCache } from '../kv/kv-cache.js';
import type { LatencyModel } from '../latency/latency-model.js';
import { VllmEngine } from '../vllm.engine.js';

/** 1 ms steps, no queueing delay: the tests read in whole steps. */
const fixedModel: LatencyModel = { name: 'fixed', queueingDelayUs: () => micros(0), stepTimeUs: () => micros(1000), outputTokenDelayUs: () => micros(0) };
const prompt = (blocks: number, base = 1_000) => Array.from({ length: blocks }, (_, i) => base + i);

describe('KvCache.importBlocks', () => {
  it('lands each uncached hash as a cached free block, reported stored, without counting hits or misses', () => {
    const kv = new KvCache(8);
    expect(kv.importBlocks(prompt(3))).toBe(3);
    expect(kv.lookupPrefix(prompt(3))).toHaveLength(3);
    expect(kv.freeBlocks).toBe(8);
    expect(kv.drainEvents()).toEqual({ stored: prompt(3), removed: [] });
    expect([kv.hitBlocks, kv.missBlocks]).toEqual([0, 0]);
    kv.checkInvariants([]);
  });

  it('skips hashes already cached, so a partial hit moves only the rest', () => {
    const kv = new KvCache(8);
    kv.importBlocks(prompt(2));
    kv.drainEvents();
    expect(kv.importBlocks(prompt(5))).toBe(3);
    expect(kv.drainEvents().stored).toEqual(prompt(5).slice(2));
  });

  it('keeps the prompt head longest: the next allocations reuse its tail first', () => {
    const kv = new KvCache(4);
    kv.importBlocks(prompt(4));
    kv.drainEvents();
    kv.allocate(1);
    expect(kv.drainEvents().removed).toEqual([prompt(4)[3]]);
    expect(kv.lookupPrefix(prompt(4))).toHaveLength(3);
  });

  it('stops when every block is held, landing none over a running request', () => {
    const kv = new KvCache(2);
    const held = kv.allocate(2);
    expect(kv.importBlocks(prompt(2))).toBe(0);
    kv.checkInvariants([held]);
  });
});

describe('VllmEngine.importKvBlocks', () => {
  const request = (id: string, inputTokens: number): EngineRequest => ({ id, inputTokens, maxTokens: 4, priority: 0, blockHashes: prompt(Math.floor(inputTokens / 16)) });

  function firstStep(engine: VllmEngine): StepResult {
    engine.enqueue(request('r', 4_096), micros(0));
    return engine.step(micros(0));
  }

  it("makes a transferred prompt a prefix hit: the decode instance computes only what was not sent", () => {
    const cold = new VllmEngine({ model: fixedModel, totalKvBlocks: 1_000, maxModelLen: 40_960 });
    const warm = new VllmEngine({ model: fixedModel, totalKvBlocks: 1_000, maxModelLen: 40_960 });
    expect(warm.importKvBlocks(prompt(256))).toBe(256);
    const coldStep = firstStep(cold);
    const warmStep = firstStep(warm);
    expect(coldStep.admitted[0]?.cachedTokens).toBe(0);
    // All but the last block: vLLM recomputes at least one token to sample the next one.
    expect(warmStep.admitted[0]?.cachedTokens).toBe(4_096 - 16);
    expect(warmStep.prefillTokens).toBeLessThan(coldStep.prefillTokens);
    warm.checkInvariants();
  });
});
