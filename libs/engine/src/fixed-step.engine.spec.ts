import { describe, expect, it } from 'vitest';
import { FixedStepEngine } from './fixed-step.engine.js';

const request = (id: string, inputTokens: number, maxTokens: number) => ({ id, inputTokens, maxTokens, blockHashes: [], priority: 0 });

describe('FixedStepEngine', () => {
  it('produces one token per running request per step and completes at maxTokens', () => {
    const engine = new FixedStepEngine({ stepTimeUs: 1000, maxRunning: 8, totalKvBlocks: 100, maxModelLen: 4096 });
    engine.enqueue(request('a', 20, 3), 0);
    engine.enqueue(request('b', 20, 1), 0);
    const first = engine.step(0);
    expect(first.durationUs).toBe(1000);
    expect(first.tokens).toEqual([{ requestId: 'a', count: 1 }, { requestId: 'b', count: 1 }]);
    expect(first.completed).toEqual(['b']);
    expect(engine.step(1000).completed).toEqual([]);
    expect(engine.step(2000).completed).toEqual(['a']);
    expect(engine.hasWork()).toBe(false);
    expect(engine.snapshot().freeKvBlocks).toBe(100);
  });

  it('rejects requests that no instance could ever hold', () => {
    const engine = new FixedStepEngine({ stepTimeUs: 1000, maxRunning: 8, totalKvBlocks: 4, maxModelLen: 100 });
    expect(engine.enqueue(request('long', 100, 1), 0).accepted).toBe(false);
    expect(engine.enqueue(request('wide', 60, 20), 0)).toMatchObject({ accepted: false, message: expect.stringContaining('KV blocks') });
  });

  it('holds the head of the queue until its KV blocks fit, and frees them on cancel', () => {
    const engine = new FixedStepEngine({ stepTimeUs: 1000, maxRunning: 8, totalKvBlocks: 4, maxModelLen: 1000 });
    engine.enqueue(request('a', 40, 8), 0); // 3 blocks
    engine.enqueue(request('b', 16, 16), 0); // 2 blocks: must wait
    engine.step(0);
    expect(engine.snapshot()).toMatchObject({ batchSize: 1, queueDepth: 1, freeKvBlocks: 1 });
    expect(engine.cancel('a', 1000)).toBe(true);
    engine.step(1000);
    expect(engine.snapshot()).toMatchObject({ batchSize: 1, queueDepth: 0, freeKvBlocks: 2 });
  });
});
