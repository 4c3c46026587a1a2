import { micros } from '@sluice/contracts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { EngineRequest, StepResult } from './engine.types.js';
import { createLatencyModel } from './latency/latency-model.registry.js';
import { LatencyProfileSchema } from './profile.js';
import { VllmEngine, type VllmEngineOptions } from './vllm.engine.js';

/**
 * BLIS parity mode (docs/behaviour.md §1, "BLIS parity mode"), hand-computed with qwen3-14b's
 * α = [8888.089034078324, 0.18488961143592303, 0], β = [13578.186662538783, 39.44465647189146, 27.3227753326911]:
 * - queueing delay of a 16-token prompt: 8888.089 + 0.18489·16 = 8891.05 → 8891
 * - prefill 32: 13578.187 + 39.445·32 = 14840.42 → 14840;   prefill 16: 13578.187 + 631.114 = 14209.30 → 14209
 * - decode 2: 13578.187 + 2·27.323 = 13632.83 → 13632;     decode 1: 13605.51 → 13605
 * - prefill 16 + decode 1: 13578.187 + 631.114 + 27.323 = 14236.62 → 14236
 */
const qwenProfile = LatencyProfileSchema.parse(parse(readFileSync(new URL('../profiles/qwen3-14b.yaml', import.meta.url), 'utf8')));
const qwen = createLatencyModel(qwenProfile.latencyModel, qwenProfile);

const request = (id: string, inputTokens: number, maxTokens: number): EngineRequest => ({
  id,
  inputTokens,
  maxTokens,
  priority: 0,
  blockHashes: Array.from({ length: Math.floor(inputTokens / 16) }, (_, j) => id.charCodeAt(0) * 100_000 + j),
});

const engineWith = (totalKvBlocks: number, compat: VllmEngineOptions['compat']) => new VllmEngine({ model: qwen, totalKvBlocks, maxModelLen: 40960, compat });

function runToIdle(engine: VllmEngine): StepResult[] {
  const steps: StepResult[] = [];
  let now = 0;
  while (engine.hasWork()) {
    if (!engine.canStep(micros(now))) {
      now = engine.nextReadyUs()!;
      continue;
    }
    const step = engine.step(micros(now));
    engine.checkInvariants();
    steps.push(step);
    now = step.startUs + step.durationUs;
  }
  return steps;
}

const countsOf = (steps: readonly StepResult[], id: string) => steps.map((s) => s.tokens.find((t) => t.request.id === id)?.count ?? '-');
const endOf = (step: StepResult) => step.startUs + step.durationUs + step.outputDelayUs;

describe('VllmEngine, BLIS parity mode: preemption regenerates the output', () => {
  it('two 16-token prompts of 20 output tokens in 4 KV blocks (hand-computed)', () => {
    const engine = engineWith(4, 'blis');
    expect(engine.enqueue(request('a', 16, 20), micros(0))).toEqual({ accepted: true, queuedAtUs: 8891 });
    engine.enqueue(request('b', 16, 20), micros(0));
    const steps = runToIdle(engine);
    // s0: both prefill (1 block each, 2 free); s1: both take their 2nd block (0 free); after s_n
    // each has computed 16 + n tokens and sampled n + 1. s17: a needs its 3rd block, b (the tail)
    // is preempted with 17 tokens sampled: BLIS resets them too. s18: b re-prefills its prompt only
    // (16 tokens, not 16 + 17) into the 1 block left. s19: b needs a decode block, none is free:
    // it is preempted again (its own victim: one KV allocation failure) and a samples its 20th
    // token. s20: b prefills again alone; s21–s39 decode its tokens 2–20, 2–17 a second time.
    expect(steps).toHaveLength(40);
    expect(steps.map((s) => s.durationUs)).toEqual([14840, ...Array(16).fill(13632), 13605, 14236, 13605, 14209, ...Array(19).fill(13605)]);
    expect(steps[0]!.startUs).toBe(8891);
    expect(steps[17]).toMatchObject({ startUs: 241843, preempted: ['b'], kvAllocationFailures: 0, decodeTokens: 1 });
    expect(steps[18]).toMatchObject({ startUs: 255448, admitted: [{ requestId: 'b', cachedTokens: 0 }], prefillTokens: 16, decodeTokens: 1 });
    expect(steps[19]).toMatchObject({ startUs: 269684, preempted: ['b'], kvAllocationFailures: 1, completed: ['a'] });
    expect(endOf(steps[19]!)).toBe(283289); // a's last token: 8891 + 14840 + 16·13632 + 13605 + 14236 + 13605
    expect(steps[20]).toMatchObject({ startUs: 283289, prefillTokens: 16, decodeTokens: 0 });
    expect(steps[39]!.completed).toEqual(['b']);
    expect(endOf(steps[39]!)).toBe(555993); // 283289 + 14209 + 19·13605
    // Tokens already streamed (b's first 17) are not reported again: 17 + 3 = 20 in all.
    const b = countsOf(steps, 'b');
    expect(b).toEqual([...Array(17).fill(1), '-', 0, '-', ...Array(17).fill(0), 1, 1, 1]);
    expect(countsOf(steps, 'a').slice(0, 20)).toEqual(Array(20).fill(1));
    expect(engine.snapshot()).toMatchObject({ preemptions: 2, kvAllocationFailures: 1, freeKvBlocks: 4 });
  });

  it("sums BLIS's ITL list after the last preemption, the sum its E2E and last_chunk_time_us add to TTFT", () => {
    // BLIS appends a decode step's duration + α2 (0 here) to the ITL list and clears it at a
    // preemption (sim/simulator.go, sim/batch_formation.go at b563c4405b7847eaf682c6d603065c1faca3ca03).
    const engine = engineWith(4, 'blis');
    engine.enqueue(request('a', 16, 20), micros(0));
    engine.enqueue(request('b', 16, 20), micros(0));
    const steps = runToIdle(engine);
    // a never restarts: its 19 decode steps s1–s19 = 16·13632 + 13605 + 14236 + 13605 = 259558,
    // so BLIS's end is its first token 8891 + 14840 = 23731 plus 259558 = 283289: the wall clock's.
    expect(steps[19]!.itlSinceRestartUs).toEqual([259558]);
    // b restarts at s19: its re-prefill s20 adds nothing, its decode steps s21–s39 add 19·13605 = 258495.
    // BLIS's end is 23731 (its first token, kept) + 258495 = 282226, where the wall clock says
    // 555993: the 273767 µs lost to the two preemptions are left out.
    expect(steps[39]!.itlSinceRestartUs).toEqual([258495]);
    expect(steps.filter((s) => s.completed.length === 0).every((s) => s.itlSinceRestartUs?.length === 0)).toBe(true);
  });

  it('gives no ITL sums by default', () => {
    const engine = engineWith(4, 'vllm');
    engine.enqueue(request('a', 16, 3), micros(0));
    const steps = runToIdle(engine);
    expect(steps.every((s) => s.itlSinceRestartUs === undefined)).toBe(true);
  });

  it('the default keeps the output: b re-prefills its prompt and its 17 tokens', () => {
    const engine = engineWith(4, 'vllm');
    engine.enqueue(request('a', 16, 20), micros(0));
    engine.enqueue(request('b', 16, 20), micros(0));
    const steps = runToIdle(engine);
    expect(steps[17]!.preempted).toEqual(['b']);
    // 33 tokens need 3 blocks, 1 is free until a completes in s19: b comes back in s20.
    const readmitted = steps.findIndex((s, i) => i > 17 && s.admitted.length > 0);
    expect(readmitted).toBe(20);
    expect(steps[20]!.admitted).toEqual([{ requestId: 'b', cachedTokens: 16 }]);
    expect(countsOf(steps, 'b').filter((c) => c === 1)).toHaveLength(20);
  });
});

describe('VllmEngine, BLIS parity mode: a KV slot for the final token', () => {
  // One 16-token prompt with 17 output tokens: 16 decode steps take its KV to 32 tokens (2 full
  // blocks); BLIS then asks a slot for the 17th token, a 3rd block. Times: 8891 + 14209 + 16·13605 = 240780.
  it('with 2 blocks the slot is refused: one KV allocation failure, nothing else changes', () => {
    const engine = engineWith(2, 'blis');
    engine.enqueue(request('a', 16, 17), micros(0));
    const steps = runToIdle(engine);
    expect(steps).toHaveLength(17);
    expect(steps.at(-1)).toMatchObject({ completed: ['a'], kvAllocationFailures: 1 });
    expect(endOf(steps.at(-1)!)).toBe(240780);
    expect(engine.snapshot()).toMatchObject({ kvAllocationFailures: 1, freeKvBlocks: 2, preemptions: 0 });
  });

  it('with 3 blocks the slot is taken (and freed with the rest): no failure', () => {
    const engine = engineWith(3, 'blis');
    engine.enqueue(request('a', 16, 17), micros(0));
    const steps = runToIdle(engine);
    expect(endOf(steps.at(-1)!)).toBe(240780);
    expect(engine.snapshot()).toMatchObject({ kvAllocationFailures: 0, freeKvBlocks: 3 });
  });

  it('the default takes no slot for the final token: no failure with 2 blocks', () => {
    const engine = engineWith(2, 'vllm');
    engine.enqueue(request('a', 16, 17), micros(0));
    runToIdle(engine);
    expect(engine.snapshot().kvAllocationFailures).toBe(0);
  });
});

describe('VllmEngine, BLIS parity mode: queue depth as a router reads it live', () => {
  it('leaves out requests still in their queueing delay (one ending exactly now is still out)', () => {
    const engine = engineWith(100, 'blis');
    engine.enqueue(request('a', 16, 4), micros(0)); // queued at 8891
    expect(engine.snapshot(micros(10)).queueDepth).toBe(0);
    expect(engine.snapshot(micros(8891)).queueDepth).toBe(0); // BLIS routes before the instance's queued event
    expect(engine.snapshot(micros(8892)).queueDepth).toBe(1);
    expect(engine.snapshot().queueDepth).toBe(1); // no time given: everything at the instance
  });

  it('the default counts every request at the instance, whatever the time', () => {
    const engine = engineWith(100, 'vllm');
    engine.enqueue(request('a', 16, 4), micros(0));
    expect(engine.snapshot(micros(10)).queueDepth).toBe(1);
  });
});
