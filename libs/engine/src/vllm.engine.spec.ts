import { micros } from '@sluice/contracts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { EngineRequest, StepResult } from './engine.types.js';
import type { LatencyModel } from './latency/latency-model.js';
import { createLatencyModel } from './latency/latency-model.registry.js';
import { LatencyProfileSchema } from './profile.js';
import { VllmEngine, type VllmEngineOptions } from './vllm.engine.js';

const qwenProfile = LatencyProfileSchema.parse(parse(readFileSync(new URL('../profiles/qwen3-14b.yaml', import.meta.url), 'utf8')));
const qwen = createLatencyModel(qwenProfile.latencyModel, qwenProfile);

/** No queueing delay and 1 ms steps: the scheduling tests read in whole steps. */
const fixedModel: LatencyModel = { name: 'fixed', queueingDelayUs: () => micros(0), stepTimeUs: () => micros(1000), outputTokenDelayUs: () => micros(0) };

/** Block j of the prompt named `tag` as a block id: ids differ across tags and positions. */
const tags = new Map<string, number>();
const blockOf = (tag: string, j: number): number => {
  if (!tags.has(tag)) tags.set(tag, tags.size + 1);
  return tags.get(tag)! * 100_000 + j;
};
const hashes = (tag: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => blockOf(tag, from + i));

/** A request whose prompt blocks are its own unless `blockHashes` says otherwise. */
const request = (id: string, inputTokens: number, maxTokens: number, extra: Partial<EngineRequest> = {}): EngineRequest => ({
  id,
  inputTokens,
  maxTokens,
  priority: 0,
  blockHashes: hashes(id, 0, Math.floor(inputTokens / 16)),
  ...extra,
});

const small = (options: Partial<VllmEngineOptions> = {}) => new VllmEngine({ model: fixedModel, totalKvBlocks: 1000, maxModelLen: 40960, ...options });

/** Steps back to back (the next step starts when the previous one ends) until the engine is idle. */
function runToIdle(engine: VllmEngine, startUs = 0, maxSteps = 100_000): StepResult[] {
  const steps: StepResult[] = [];
  let now = startUs;
  while (engine.hasWork()) {
    if (!engine.canStep(micros(now))) {
      now = engine.nextReadyUs()!;
      continue;
    }
    const result = engine.step(micros(now));
    engine.checkInvariants();
    steps.push(result);
    now = result.startUs + result.durationUs;
    if (steps.length > maxSteps) throw new Error('the engine did not drain');
  }
  return steps;
}

const tokenTime = (step: StepResult) => step.startUs + step.durationUs + step.outputDelayUs;
const admittedIds = (steps: readonly StepResult[]) => steps.flatMap((s) => s.admitted.map((a) => a.requestId));
const stepsWith = (steps: readonly StepResult[], id: string) => steps.filter((s) => s.tokens.some((t) => t.request.id === id));

describe('VllmEngine: timing (hand-computed, qwen3-14b on H100)', () => {
  it('one 512-token request with 64 output tokens: TTFT 42755 µs, ITL 13605 µs, E2E 899870 µs', () => {
    const engine = new VllmEngine({ model: qwen, totalKvBlocks: qwenProfile.totalKvBlocks, maxModelLen: qwenProfile.maxModelLen });
    // Queueing delay: 8888.089034078324 + 0.18488961143592303·512 = 8982.75 → 8982.
    expect(engine.enqueue(request('a', 512, 64), micros(0))).toEqual({ accepted: true, queuedAtUs: 8982 });
    expect(engine.canStep(micros(8981))).toBe(false);
    expect(engine.nextReadyUs()).toBe(8982);
    expect(engine.snapshot()).toMatchObject({ queueDepth: 1, inFlight: 1, batchSize: 0 });

    const steps = runToIdle(engine);
    const [first, ...decodes] = steps as [StepResult, ...StepResult[]];
    // Prefill step: 13578.186662538783 + 39.44465647189146·512 = 33773.85 → 33773; it samples the first token.
    expect(first).toMatchObject({ startUs: 8982, durationUs: 33773, outputDelayUs: 0, prefillTokens: 512, decodeTokens: 0, tokens: [{ request: { id: 'a' }, count: 1 }], admitted: [{ requestId: 'a', cachedTokens: 0 }] });
    expect(first.kvStored).toHaveLength(32);
    expect(tokenTime(first)).toBe(42755); // TTFT (arrival at 0)
    // 63 decode steps of 13578.186662538783 + 27.3227753326911 = 13605.51 → 13605, back to back.
    expect(decodes).toHaveLength(63);
    for (const step of decodes) expect(step).toMatchObject({ durationUs: 13605, prefillTokens: 0, decodeTokens: 1, tokens: [{ request: { id: 'a' }, count: 1 }] });
    const last = decodes.at(-1)!;
    expect(last.completed).toEqual(['a']);
    expect(tokenTime(last)).toBe(899870); // E2E = 42755 + 63·13605
    expect(engine.snapshot()).toMatchObject({ inFlight: 0, freeKvBlocks: 17600, kvUtilization: 0 });
  });

  it('prefills a 5000-token prompt in chunks of 2048, 2048 and 904, sampling only after the last', () => {
    const engine = new VllmEngine({ model: qwen, totalKvBlocks: qwenProfile.totalKvBlocks, maxModelLen: qwenProfile.maxModelLen });
    engine.enqueue(request('long', 5000, 2), micros(0));
    const steps = runToIdle(engine);
    expect(steps.map((s) => s.prefillTokens)).toEqual([2048, 2048, 904, 0]);
    expect(steps.map((s) => s.tokens[0]?.count)).toEqual([0, 0, 1, 1]);
    expect(steps.map((s) => s.durationUs)).toEqual([Math.trunc(qwenProfile.beta[0] + qwenProfile.beta[1] * 2048), Math.trunc(qwenProfile.beta[0] + qwenProfile.beta[1] * 2048), Math.trunc(qwenProfile.beta[0] + qwenProfile.beta[1] * 904), 13605]);
    expect(steps[3]!.completed).toEqual(['long']);
  });

  it('reports the remaining prefill and the decode blocks in its snapshot', () => {
    const engine = small();
    engine.enqueue(request('long', 5000, 2), micros(0));
    engine.step(micros(0));
    expect(engine.snapshot()).toMatchObject({ batchSize: 1, queueDepth: 0, activePrefillTokens: 5000 - 2048, activeDecodeBlocks: 0, freeKvBlocks: 1000 - 128 });
    engine.step(micros(1000));
    engine.step(micros(2000));
    expect(engine.snapshot()).toMatchObject({ activePrefillTokens: 0, activeDecodeBlocks: 313 }); // ceil(5000/16)
  });

  it('counts a prompt block that several decoding requests share once, as Dynamo counts active blocks per worker', () => {
    const engine = small();
    // Two 360-token prompts sharing a 320-token document (blocks 0-19), each with 2 full blocks of
    // its own and an 8-token partial block; a third on another document.
    const onDocument = (id: string, doc: string) => request(id, 360, 4, { blockHashes: [...hashes(doc, 0, 20), ...hashes(id, 20, 22)] });
    engine.enqueue(onDocument('a', 'doc'), micros(0));
    engine.enqueue(onDocument('b', 'doc'), micros(0));
    engine.enqueue(onDocument('c', 'other'), micros(0));
    engine.step(micros(0));
    // Each holds ceil(360/16) = 23 blocks (per request: 69). Unique: the shared 20 once, then
    // a's and b's 2 full + 1 partial each (6), and c's 23: 20 + 6 + 23 = 49.
    expect(engine.snapshot()).toMatchObject({ activePrefillTokens: 0, batchSize: 3, activeDecodeBlocks: 49 });
  });

  it('completes a max_tokens = 0 request at the end of its prefill, with no token', () => {
    const engine = small();
    engine.enqueue(request('zero', 40, 0), micros(0));
    const steps = runToIdle(engine);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ prefillTokens: 40, tokens: [{ request: { id: 'zero' }, count: 0 }], completed: ['zero'] });
  });

  it('stamps tokens α2 after the step ends', () => {
    const model: LatencyModel = { ...fixedModel, outputTokenDelayUs: () => micros(7) };
    const engine = small({ model });
    engine.enqueue(request('a', 16, 1), micros(0));
    const [step] = runToIdle(engine);
    expect(step!.outputDelayUs).toBe(7);
    expect(tokenTime(step!)).toBe(1007);
  });
});

describe('VllmEngine: prefix caching', () => {
  const shared = hashes('doc', 0, 32); // the first 512 tokens
  const a = request('a', 1024, 4, { blockHashes: [...shared, ...hashes('a', 32, 64)] });
  const b = request('b', 1024, 4, { blockHashes: [...shared, ...hashes('b', 32, 64)] });

  it('halves the second prefill when half its blocks are cached (the first has finished)', () => {
    const engine = small();
    engine.enqueue(a, micros(0));
    const first = runToIdle(engine);
    expect(first[0]!.prefillTokens).toBe(1024);
    engine.enqueue(b, micros(10_000));
    const [step] = runToIdle(engine, 10_000);
    expect(step).toMatchObject({ prefillTokens: 512, admitted: [{ requestId: 'b', cachedTokens: 512 }] });
    expect(step!.kvStored).toEqual(hashes('b', 32, 64));
    // 32 hits out of 32 + 64 + 3 (a's decode block) + 32 + 1 (b's new prefill blocks, then decode)
    expect(engine.snapshot().cacheHitRate).toBeCloseTo(32 / (32 + 65 + 32 + 1), 10);
  });

  it('shares the blocks of a request that is still running', () => {
    const engine = small();
    engine.enqueue(a, micros(0));
    engine.step(micros(0));
    engine.enqueue(b, micros(1000));
    const step = engine.step(micros(1000));
    expect(step).toMatchObject({ prefillTokens: 512, decodeTokens: 1, admitted: [{ requestId: 'b', cachedTokens: 512 }] });
    // 64 + 1 blocks for a, 32 shared + 32 own for b.
    expect(engine.snapshot().freeKvBlocks).toBe(1000 - 65 - 32);
    engine.checkInvariants();
  });

  it('always leaves one token to compute, even when the whole prompt is cached', () => {
    const engine = small();
    engine.enqueue(request('a', 1024, 1, { blockHashes: shared.concat(hashes('doc', 32, 64)) }), micros(0));
    runToIdle(engine);
    engine.enqueue(request('again', 1024, 1, { blockHashes: shared.concat(hashes('doc', 32, 64)) }), micros(5000));
    const [step] = runToIdle(engine, 5000);
    expect(step).toMatchObject({ prefillTokens: 16, admitted: [{ requestId: 'again', cachedTokens: 1008 }] });
  });

  it('lets a request admitted later in the same step hit blocks indexed earlier in it (vLLM v1, BLIS)', () => {
    const engine = small();
    engine.enqueue(request('a', 512, 1, { blockHashes: shared }), micros(0));
    engine.enqueue(request('b', 512, 1, { blockHashes: shared }), micros(0));
    const step = engine.step(micros(0));
    expect(step.admitted).toEqual([
      { requestId: 'a', cachedTokens: 0 },
      { requestId: 'b', cachedTokens: 496 },
    ]);
    expect(step.prefillTokens).toBe(512 + 16);
  });

  it('reports the hashes of cached blocks it reuses for other data as removed', () => {
    const engine = small({ totalKvBlocks: 4 });
    engine.enqueue(request('a', 32, 1), micros(0)); // blocks 0, 1 → a:0, a:1 (released as [1, 0] after free blocks 2, 3)
    expect(runToIdle(engine)[0]!.kvStored).toEqual(hashes('a', 0, 2));
    engine.enqueue(request('b', 64, 1), micros(5000)); // needs all 4 blocks: evicts a:1 then a:0
    const [step] = runToIdle(engine, 5000);
    expect(step).toMatchObject({ kvStored: hashes('b', 0, 4), kvRemoved: hashes('a', 0, 2).reverse() });
  });
});

describe('VllmEngine: batch formation', () => {
  it('preempts the tail of the running batch when KV blocks run out, and re-prefills prompt + output', () => {
    // 10 blocks; a and b each hold 4 prompt blocks and grow one block per 16 tokens.
    const engine = small({ totalKvBlocks: 10 });
    engine.enqueue(request('a', 64, 40), micros(0));
    engine.enqueue(request('b', 64, 40), micros(0));
    const steps = runToIdle(engine);
    const preemption = steps.findIndex((s) => s.preempted.length > 0);
    const at = steps[preemption]!;
    expect(at.preempted).toEqual(['b']); // the tail, not a
    expect(at.tokens.map((t) => t.request.id)).toEqual(['a']);
    // b had produced one token per step up to here (its first at step 0).
    const generated = stepsWith(steps.slice(0, preemption), 'b').length;
    const back = steps.findIndex((s, i) => i > preemption && s.admitted.some((x) => x.requestId === 'b'));
    const readmit = steps[back]!;
    const cached = readmit.admitted[0]!.cachedTokens;
    // b's blocks were freed last block first, so a's next block took b's decode block and the one
    // after took b's last prompt block: three of b's four prompt blocks are still cached.
    expect(cached).toBe(48);
    expect(readmit.prefillTokens).toBe(64 + generated - cached);
    expect(readmit.tokens.find((t) => t.request.id === 'b')?.count).toBe(1);
    expect(engine.snapshot().preemptions).toBe(steps.reduce((n, s) => n + s.preempted.length, 0));
    // Both finish with exactly their 40 tokens.
    for (const id of ['a', 'b']) expect(steps.flatMap((s) => s.tokens).filter((t) => t.request.id === id).reduce((n, t) => n + t.count, 0)).toBe(40);
  });

  it('admits nothing in a step that preempted, and puts the victim at the front of the queue', () => {
    const setup = () => {
      const e = small({ totalKvBlocks: 10 });
      e.enqueue(request('a', 64, 40), micros(0));
      e.enqueue(request('b', 64, 40), micros(0));
      return e;
    };
    const k = runToIdle(setup()).findIndex((s) => s.preempted.length > 0);
    const engine = setup();
    for (let i = 0; i < k; i++) engine.step(micros(i * 1000));
    // One block: it would fit once b's blocks are freed, but this step preempted.
    engine.enqueue(request('tiny', 1, 1), micros(k * 1000));
    const step = engine.step(micros(k * 1000));
    expect(step).toMatchObject({ preempted: ['b'], admitted: [] });
    expect(engine.snapshot()).toMatchObject({ queueDepth: 2, batchSize: 1, preemptions: 1 });
    expect(admittedIds(runToIdle(engine, (k + 1) * 1000))).toEqual(['b', 'tiny']);
  });

  it('blocks the queue behind a head request that does not fit (head-of-line)', () => {
    const engine = small({ totalKvBlocks: 10 });
    engine.enqueue(request('runner', 96, 30), micros(0)); // 6 prompt blocks, 7 once decoding
    engine.step(micros(0));
    engine.enqueue(request('big', 80, 1), micros(1000)); // needs 5 blocks: only 3 free
    engine.enqueue(request('tiny', 16, 1), micros(1000)); // needs 1 and would fit
    const step = engine.step(micros(1000));
    expect(step.admitted).toEqual([]);
    expect(engine.snapshot()).toMatchObject({ queueDepth: 2, batchSize: 1, freeKvBlocks: 3 });
    const rest = runToIdle(engine, 2000);
    expect(admittedIds(rest)).toEqual(['big', 'tiny']);
    expect(rest.findIndex((s) => s.admitted.length > 0)).toBe(rest.findIndex((s) => s.completed.includes('runner')) + 1);
  });

  it('caps the running batch at maxRunning and the step at maxBatchTokens', () => {
    const engine = small({ maxRunning: 2, maxBatchTokens: 100 });
    for (const id of ['a', 'b', 'c']) engine.enqueue(request(id, 80, 3), micros(0));
    const first = engine.step(micros(0));
    // a takes 80 tokens, b the remaining 20 of the budget; c waits for a running slot.
    expect(first.admitted.map((x) => x.requestId)).toEqual(['a', 'b']);
    expect(first.prefillTokens).toBe(100);
    // b's remaining 60 plus c's whole prompt, still queued (Dynamo counts queued prefill too).
    expect(engine.snapshot()).toMatchObject({ batchSize: 2, queueDepth: 1, activePrefillTokens: 60 + 80 });
    const second = engine.step(micros(1000));
    expect(second).toMatchObject({ prefillTokens: 60, decodeTokens: 1 });
  });
});

describe('VllmEngine: instance schedulers', () => {
  const ordered = (scheduler: VllmEngineOptions['scheduler'], requests: EngineRequest[]) => {
    const engine = small({ scheduler, maxRunning: 1 });
    for (const r of requests) engine.enqueue(r, micros(0));
    return admittedIds(runToIdle(engine));
  };

  it('fcfs serves in arrival order', () => {
    expect(ordered('fcfs', [request('big', 300, 1), request('small', 20, 1), request('mid', 100, 1)])).toEqual(['big', 'small', 'mid']);
  });

  it('priority-fcfs serves higher priority first, then arrival, then id', () => {
    const engine = small({ scheduler: 'priority-fcfs', maxRunning: 1 });
    engine.enqueue(request('std-b', 16, 1, { priority: 3 }), micros(0)); // arrives first
    engine.enqueue(request('low', 16, 1, { priority: -1 }), micros(1));
    engine.enqueue(request('std-a', 16, 1, { priority: 3 }), micros(1));
    engine.enqueue(request('crit', 16, 1, { priority: 4 }), micros(1));
    engine.enqueue(request('std-0', 16, 1, { priority: 3 }), micros(1)); // same priority and arrival as std-a: the id decides
    expect(admittedIds(runToIdle(engine, 1))).toEqual(['crit', 'std-b', 'std-0', 'std-a', 'low']);
  });

  it('sjf serves the shortest prompt first, then arrival, then id', () => {
    expect(ordered('sjf', [request('big', 300, 1), request('small', 20, 1), request('mid', 100, 1), request('also-small', 20, 1)])).toEqual(['also-small', 'small', 'mid', 'big']);
  });

  it('priority-fcfs preempts the lowest-priority, latest-arriving request instead of the tail', () => {
    const scenario = (scheduler: VllmEngineOptions['scheduler']) => {
      const engine = small({ scheduler, totalKvBlocks: 10 });
      engine.enqueue(request('low', 64, 40, { priority: 0 }), micros(0));
      engine.step(micros(0)); // low runs first and so sits at the head of the batch
      engine.enqueue(request('high', 64, 40, { priority: 4 }), micros(1000));
      return runToIdle(engine, 1000).flatMap((s) => s.preempted);
    };
    expect(scenario('fcfs')[0]).toBe('high');
    expect(scenario('priority-fcfs')[0]).toBe('low');
  });

  it('rejects an unknown scheduler by name', () => {
    expect(() => small({ scheduler: 'lifo' as never })).toThrow(/unknown instance scheduler "lifo"; allowed: fcfs, priority-fcfs, sjf/);
  });
});

describe('VllmEngine: unservable requests are dropped, never queued', () => {
  const engine = () => small({ totalKvBlocks: 4, maxModelLen: 100 });

  it.each([
    ['negative max_tokens', request('r', 10, -1), 'negative_max_tokens', /-1/],
    ['an empty prompt', request('r', 0, 10), 'empty_prompt', /at least 1 token/],
    ['a prompt as long as the context', request('r', 100, 0), 'input_too_long', /100 tokens.*100/],
    ['prompt + output longer than the context', request('r', 60, 41), 'exceeds_max_model_len', /prompt \(60\) \+ max_tokens \(41\) = 101 tokens.*100/],
    ['a prompt larger than the KV cache', request('r', 65, 0), 'exceeds_kv_capacity', /needs 5 KV blocks; this instance has 4/],
    ['a request whose last token would not fit in the KV cache', request('r', 60, 6), 'exceeds_kv_capacity', /needs 5 KV blocks at its last token; this instance has 4/],
  ])('drops %s', (_name, r, reason, message) => {
    const e = engine();
    const result = e.enqueue(r, micros(0));
    expect(result).toMatchObject({ accepted: false, reason, message: expect.stringMatching(message) });
    expect(e.hasWork()).toBe(false);
  });

  it('accepts the largest request that fits', () => {
    expect(engine().enqueue(request('r', 64, 1), micros(0)).accepted).toBe(true); // 64 tokens: 4 blocks
    expect(engine().enqueue(request('r', 50, 15), micros(0)).accepted).toBe(true); // last decode holds 64 tokens
  });

  it('refuses a second request with an id it already holds', () => {
    const e = engine();
    e.enqueue(request('r', 10, 1), micros(0));
    expect(() => e.enqueue(request('r', 10, 1), micros(0))).toThrow(/already on this instance/);
  });
});

describe('VllmEngine: cancellation', () => {
  it.each([
    ['in its queueing delay', 0],
    ['in the wait queue', 1],
    ['running', 2],
  ])('removes a request %s and frees its blocks', (_where, stepsFirst) => {
    const model: LatencyModel = { ...fixedModel, queueingDelayUs: () => micros(500) };
    const engine = new VllmEngine({ model, totalKvBlocks: 20, maxModelLen: 1000, maxRunning: 1 });
    engine.enqueue(request('a', 100, 50), micros(0));
    engine.enqueue(request('b', 100, 50), micros(0));
    const target = ['b', 'b', 'a'][stepsFirst]!;
    if (stepsFirst > 0) engine.step(micros(500));
    if (stepsFirst > 1) engine.step(micros(1500));
    expect(engine.cancel(target, micros(2000))).toBe(true);
    expect(engine.cancel(target, micros(2000))).toBe(false);
    engine.checkInvariants();
    const rest = runToIdle(engine, 2500);
    expect(rest.flatMap((s) => s.tokens).some((t) => t.request.id === target)).toBe(false);
    expect(engine.snapshot()).toMatchObject({ freeKvBlocks: 20, kvUtilization: 0, inFlight: 0 });
    expect(engine.hasWork()).toBe(false);
  });

  it('returns false for an unknown or finished request', () => {
    const engine = small();
    engine.enqueue(request('a', 16, 1), micros(0));
    runToIdle(engine);
    expect(engine.cancel('a', micros(5000))).toBe(false);
    expect(engine.cancel('nope', micros(5000))).toBe(false);
  });
});
