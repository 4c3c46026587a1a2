import { describe, expect, it } from 'vitest';
import { modelTimingFigures, modelTimingViolations, QWEN3_14B_512_IN_64_OUT as model } from './model-timing.js';

const atModel = { workerTtftMs: model.ttftMs, clientTtftMs: model.ttftMs + 6, workerDecodeMs: model.decodeMs, tokenGapMs: model.stepMs };

describe('the timing suites’ checks against the model', () => {
  it('pass the model’s own figures plus a path', () => {
    expect(modelTimingViolations(atModel)).toEqual([]);
  });

  it.each([
    ['a prefill step too many', { workerTtftMs: model.ttftMs + 13.6 }, 'instance TTFT'],
    ['a missing queueing delay', { workerTtftMs: model.ttftMs - 8.982 }, 'instance TTFT'],
    ['one decode step too few', { workerDecodeMs: model.decodeMs - model.stepMs }, 'instance decode'],
    ['one decode step too many', { workerDecodeMs: model.decodeMs + model.stepMs }, 'instance decode'],
    ['tokens sent in a burst', { tokenGapMs: 0 }, 'median token gap'],
    ['a client faster than the model', { clientTtftMs: model.ttftMs - 1 }, 'client TTFT'],
  ])('fail %s', (_, change, what) => {
    const broken = modelTimingViolations({ ...atModel, ...change });
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(new RegExp(`^${what} `));
  });

  it('take medians, so one late first token moves nothing', () => {
    const run = (ttftMs: number) => ({ ttftMs, e2eMs: 0, chunks: 3, tokenArrivalsMs: [0, 13.6, 27.2], workerTtftMs: model.ttftMs, workerDecodeMs: model.decodeMs });
    const found = modelTimingFigures([run(50), run(120), run(51)]);
    expect(found.clientTtftMs).toBe(51);
    expect(found.tokenGapMs).toBeCloseTo(13.6);
  });
});
