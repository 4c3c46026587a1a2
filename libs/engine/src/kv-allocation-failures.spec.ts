import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { EngineRequest, StepResult } from './engine.types.js';
import type { LatencyModel } from './latency/latency-model.js';
import { VllmEngine } from './vllm.engine.js';

/** No queueing delay and 1 ms steps: the counts read in whole steps. */
const fixedModel: LatencyModel = { name: 'fixed', queueingDelayUs: () => micros(0), stepTimeUs: () => micros(1000), outputTokenDelayUs: () => micros(0) };

const request = (id: string, inputTokens: number, maxTokens: number): EngineRequest => ({
  id,
  inputTokens,
  maxTokens,
  priority: 0,
  // Prompt blocks of their own: no prefix hits between requests.
  blockHashes: Array.from({ length: Math.floor(inputTokens / 16) }, (_, j) => id.charCodeAt(0) * 100_000 + j),
});

function runToIdle(engine: VllmEngine, startUs: number): StepResult[] {
  const steps: StepResult[] = [];
  for (let now = startUs; engine.hasWork(); now += 1000) steps.push(engine.step(micros(now)));
  return steps;
}

describe('VllmEngine: KV allocation failures', () => {
  it('counts nothing while every request gets its blocks', () => {
    const engine = new VllmEngine({ model: fixedModel, totalKvBlocks: 1000, maxModelLen: 40960 });
    engine.enqueue(request('a', 64, 40), micros(0));
    engine.enqueue(request('b', 64, 40), micros(0));
    const steps = runToIdle(engine, 0);
    expect(steps.every((s) => s.kvAllocationFailures === 0)).toBe(true);
    expect(engine.snapshot().kvAllocationFailures).toBe(0);
  });

  it('counts the head of the queue once in every step it does not fit (hand-computed: 29)', () => {
    // 10 blocks. runner: 96 prompt tokens (6 blocks) and 30 output tokens; its prefill (step 0)
    // samples token 1 and steps 1–29 decode tokens 2–30, so it holds 7, then 8 blocks until its
    // last step. big needs 5 blocks from step 1 on and finds at most 3 free: refused in each of
    // steps 1–29 (in step 29 runner still holds its blocks when the batch forms), admitted in 30.
    const engine = new VllmEngine({ model: fixedModel, totalKvBlocks: 10, maxModelLen: 40960 });
    engine.enqueue(request('r', 96, 30), micros(0));
    expect(engine.step(micros(0)).kvAllocationFailures).toBe(0);
    engine.enqueue(request('b', 80, 1), micros(1000));
    const steps = runToIdle(engine, 1000);
    expect(steps.slice(0, 29).map((s) => s.kvAllocationFailures)).toEqual(Array.from({ length: 29 }, () => 1));
    expect(steps[29]!.admitted.map((a) => a.requestId)).toEqual(['b']);
    expect(steps.slice(29).every((s) => s.kvAllocationFailures === 0)).toBe(true);
    expect(engine.snapshot().kvAllocationFailures).toBe(29);
  });

  it('does not count the request that made room by preempting another; the snapshot sums the steps', () => {
    // The preemption case of vllm.engine.spec.ts: a needs a block, b (the tail) is preempted for it.
    const engine = new VllmEngine({ model: fixedModel, totalKvBlocks: 10, maxModelLen: 40960 });
    engine.enqueue(request('a', 64, 40), micros(0));
    engine.enqueue(request('b', 64, 40), micros(0));
    const steps = runToIdle(engine, 0);
    const preempting = steps.find((s) => s.preempted.length > 0)!;
    expect(preempting.kvAllocationFailures).toBe(0);
    const total = steps.reduce((n, s) => n + s.kvAllocationFailures, 0);
    // b waits at the head of the queue until a frees room: refused in the steps between.
    expect(total).toBeGreaterThan(0);
    expect(engine.snapshot()).toMatchObject({ kvAllocationFailures: total, preemptions: 1 });
  });
});
