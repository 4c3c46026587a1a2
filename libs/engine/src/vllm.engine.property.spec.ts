import { micros } from '@sluice/contracts';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { parse } from 'yaml';
import type { EngineRequest, StepResult } from './engine.types.js';
import { createLatencyModel } from './latency/latency-model.registry.js';
import { LatencyProfileSchema } from './profile.js';
import { INSTANCE_SCHEDULER_NAMES } from './scheduling/instance-scheduler.js';
import { VllmEngine } from './vllm.engine.js';

// node:assert rather than expect in the per-step checks: tens of thousands of steps per property.

const profile = LatencyProfileSchema.parse(parse(readFileSync(new URL('../profiles/qwen3-14b.yaml', import.meta.url), 'utf8')));
const model = createLatencyModel(profile.latencyModel, profile);

interface RequestSpec {
  readonly gapUs: number;
  readonly inputTokens: number;
  readonly maxTokens: number;
  /** Requests of one family share their first `sharedBlocks` prompt blocks. */
  readonly family: number;
  readonly sharedBlocks: number;
  readonly priority: number;
  readonly cancelAfterUs: number | null;
}

interface Scenario {
  readonly totalKvBlocks: number;
  readonly maxModelLen: number;
  readonly maxRunning: number;
  readonly maxBatchTokens: number;
  readonly scheduler: (typeof INSTANCE_SCHEDULER_NAMES)[number];
  readonly requests: readonly RequestSpec[];
}

const requestSpec = (inputTokens: fc.Arbitrary<number>): fc.Arbitrary<RequestSpec> =>
  fc.record({
    // Bursts (same instant), steady arrivals, and lulls long enough for the engine to go idle.
    gapUs: fc.oneof(fc.constant(0), fc.nat({ max: 20_000 }), fc.nat({ max: 300_000 })),
    inputTokens,
    maxTokens: fc.integer({ min: 0, max: 200 }),
    family: fc.integer({ min: 0, max: 2 }),
    sharedBlocks: fc.nat({ max: 200 }),
    priority: fc.integer({ min: -3, max: 4 }),
    // About one request in four is cancelled (a client disconnect), at any point of its life.
    cancelAfterUs: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.nat({ max: 2_000_000 }), weight: 1 }),
  });

/** Anything: tiny to real KV caches, short contexts, prompts up to 3000 tokens. */
const anyWorkload: fc.Arbitrary<Scenario> = fc.record({
  totalKvBlocks: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 12 }), weight: 2 },
    { arbitrary: fc.integer({ min: 13, max: 400 }), weight: 3 },
    // Roomy: 30 prompts of 3000 tokens fit (a real instance's 17600 blocks behave the same).
    { arbitrary: fc.integer({ min: 401, max: 6000 }), weight: 1 },
  ),
  maxModelLen: fc.oneof({ arbitrary: fc.constant(profile.maxModelLen), weight: 3 }, { arbitrary: fc.integer({ min: 2, max: 4096 }), weight: 1 }),
  maxRunning: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constant(256)),
  maxBatchTokens: fc.oneof(fc.integer({ min: 16, max: 512 }), fc.constant(2048)),
  scheduler: fc.constantFrom(...INSTANCE_SCHEDULER_NAMES),
  // Small prompts often, so that tiny KV caches still serve something.
  requests: fc.array(requestSpec(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 3000 }))), { minLength: 1, maxLength: 30 }),
});

/** Many concurrent small requests on a small cache: preemption and head-of-line blocking all the time. */
const kvPressure: fc.Arbitrary<Scenario> = fc.record({
  totalKvBlocks: fc.integer({ min: 8, max: 64 }),
  maxModelLen: fc.constant(profile.maxModelLen),
  maxRunning: fc.oneof(fc.integer({ min: 2, max: 16 }), fc.constant(256)),
  maxBatchTokens: fc.oneof(fc.integer({ min: 16, max: 256 }), fc.constant(2048)),
  scheduler: fc.constantFrom(...INSTANCE_SCHEDULER_NAMES),
  requests: fc.array(requestSpec(fc.integer({ min: 1, max: 200 })), { minLength: 2, maxLength: 30 }),
});

type Event = { readonly atUs: number; readonly kind: 'arrival'; readonly request: EngineRequest } | { readonly atUs: number; readonly kind: 'cancel'; readonly id: string };

function eventsOf(s: Scenario): Event[] {
  const events: Event[] = [];
  let atUs = 0;
  s.requests.forEach((spec, i) => {
    atUs += spec.gapUs;
    const id = `r${i}`;
    const full = Math.floor(spec.inputTokens / 16);
    const shared = Math.min(full, spec.sharedBlocks);
    // Chained hashes: once a block differs, every later block differs too. Ids: the family's
    // shared blocks, then the request's own (blocks per prompt stay under 10,000).
    const blockHashes = Array.from({ length: full }, (_, j) => (j < shared ? spec.family * 10_000 + j : (1_000 + i) * 10_000 + j));
    events.push({ atUs, kind: 'arrival', request: { id, inputTokens: spec.inputTokens, maxTokens: spec.maxTokens, priority: spec.priority, blockHashes } });
    if (spec.cancelAfterUs !== null) events.push({ atUs: atUs + spec.cancelAfterUs, kind: 'cancel', id });
  });
  // Stable: at equal times an arrival keeps its place before a later cancel.
  return events.sort((a, b) => a.atUs - b.atUs);
}

type State = 'dropped' | 'queued' | 'running' | 'completed' | 'cancelled';

/** What the test knows of one request, to hold the engine to. */
interface Tracked {
  readonly request: EngineRequest;
  state: State;
  queuedAtUs: number;
  produced: number;
  lastTokenUs: number;
  ends: number;
}

const MAX_STEPS = 100_000;

/**
 * Drives the engine as the worker does (arrivals and cancels between steps, each step starting
 * when the previous one ends, sleeping to the next event when idle) and replays every step on
 * the test's own books.
 */
function run(s: Scenario): { steps: number; preemptions: number } {
  const engine = new VllmEngine({ model, totalKvBlocks: s.totalKvBlocks, maxModelLen: s.maxModelLen, maxRunning: s.maxRunning, maxBatchTokens: s.maxBatchTokens, scheduler: s.scheduler });
  const tracked = new Map<string, Tracked>();
  const events = eventsOf(s);
  const get = (id: string): Tracked => {
    const t = tracked.get(id);
    assert.ok(t, `unknown request ${id}`);
    return t;
  };
  const end = (t: Tracked, state: State) => {
    assert.equal(t.ends, 0, `${t.request.id} ended twice`);
    t.state = state;
    t.ends++;
  };
  const isAlive = (t: Tracked) => t.state === 'queued' || t.state === 'running';

  let now = 0;
  let next = 0;
  let steps = 0;

  const deliver = (event: Event): void => {
    if (event.kind === 'arrival') {
      const result = engine.enqueue(event.request, micros(event.atUs));
      const t: Tracked = { request: event.request, state: 'queued', queuedAtUs: Infinity, produced: 0, lastTokenUs: -Infinity, ends: 0 };
      tracked.set(event.request.id, t);
      if (!result.accepted) return end(t, 'dropped');
      assert.equal(result.queuedAtUs, event.atUs + model.queueingDelayUs(event.request.inputTokens));
      t.queuedAtUs = result.queuedAtUs;
    } else {
      const t = get(event.id);
      const wasAlive = isAlive(t);
      assert.equal(engine.cancel(event.id, micros(event.atUs)), wasAlive, `cancel ${event.id} in state ${t.state}`);
      if (wasAlive) end(t, 'cancelled');
    }
  };

  /** Lifecycle: queued → running (admitted) → first token → … → completed; preemption goes back to queued. */
  const replay = (step: StepResult): void => {
    assert.equal(step.startUs, now);
    assert.equal(step.durationUs, model.stepTimeUs(step.prefillTokens, step.decodeTokens));
    assert.ok(step.prefillTokens + step.decodeTokens <= s.maxBatchTokens, 'token budget exceeded');
    if (step.preempted.length > 0) assert.deepEqual(step.admitted, [], 'admitted in a step that preempted');
    for (const id of step.preempted) {
      const t = get(id);
      assert.equal(t.state, 'running', `preempted ${id} while ${t.state}`);
      t.state = 'queued';
    }
    for (const { requestId, cachedTokens } of step.admitted) {
      const t = get(requestId);
      assert.equal(t.state, 'queued', `admitted ${requestId} while ${t.state}`);
      assert.ok(t.queuedAtUs <= step.startUs, `admitted ${requestId} before its queueing delay ended`);
      assert.equal(cachedTokens % 16, 0);
      assert.ok(cachedTokens < t.request.inputTokens + t.produced, 'a whole prefill served from cache');
      t.state = 'running';
    }
    assert.equal(new Set(step.tokens.map((x) => x.request.id)).size, step.tokens.length, 'a request twice in one batch');
    assert.ok(step.tokens.length <= s.maxRunning, 'batch larger than maxRunning');
    assert.ok(step.decodeTokens <= step.tokens.length);
    const tokenUs = step.startUs + step.durationUs + step.outputDelayUs;
    for (const { request: { id: requestId }, count } of step.tokens) {
      const t = get(requestId);
      assert.equal(t.state, 'running', `${requestId} computed while ${t.state}`);
      assert.ok(count === 0 || count === 1);
      if (count === 0) continue;
      // Causality: a first token needs a whole step after the request joined the queue.
      if (t.produced === 0) assert.ok(tokenUs >= t.queuedAtUs + step.durationUs, `${requestId}: first token before a step could run`);
      assert.ok(tokenUs > t.lastTokenUs, `${requestId}: token times went backwards`);
      t.lastTokenUs = tokenUs;
      t.produced++;
      assert.ok(t.produced <= t.request.maxTokens, `${requestId}: more than max_tokens`);
    }
    for (const id of step.completed) {
      const t = get(id);
      assert.equal(t.state, 'running');
      assert.equal(t.produced, t.request.maxTokens, `${id} completed early`);
      end(t, 'completed');
    }
  };

  const checkBooks = (): void => {
    engine.checkInvariants(); // allocated + free = total, and every reference held by a running request
    const snapshot = engine.snapshot();
    let queued = 0;
    let running = 0;
    for (const t of tracked.values()) {
      if (t.state === 'queued') queued++;
      else if (t.state === 'running') running++;
    }
    assert.equal(snapshot.batchSize, running);
    assert.equal(snapshot.queueDepth, queued);
    assert.equal(snapshot.inFlight, queued + running);
    assert.equal(snapshot.freeKvBlocks + Math.round(snapshot.kvUtilization * snapshot.totalKvBlocks), snapshot.totalKvBlocks);
    assert.ok(snapshot.cacheHitRate >= 0 && snapshot.cacheHitRate <= 1);
  };

  for (;;) {
    while (next < events.length && events[next]!.atUs <= now) deliver(events[next++]!);
    if (engine.canStep(micros(now))) {
      const step = engine.step(micros(now));
      replay(step);
      checkBooks();
      now = step.startUs + step.durationUs;
      assert.ok(++steps <= MAX_STEPS, `no drain after ${MAX_STEPS} steps`);
      continue;
    }
    for (const t of tracked.values()) assert.notEqual(t.state, 'running', 'idle with a running request');
    const wake = Math.min(events[next]?.atUs ?? Infinity, engine.nextReadyUs() ?? Infinity);
    if (wake === Infinity) break;
    now = Math.max(now, wake);
  }

  // Arrivals stopped and the engine went idle: every request ended exactly once, all blocks free.
  assert.equal(engine.hasWork(), false);
  const snapshot = engine.snapshot();
  assert.deepEqual([snapshot.inFlight, snapshot.freeKvBlocks, snapshot.kvUtilization], [0, s.totalKvBlocks, 0]);
  for (const t of tracked.values()) {
    assert.equal(t.ends, 1, `${t.request.id} never ended`);
    if (t.state === 'completed') assert.equal(t.produced, t.request.maxTokens);
  }
  return { steps, preemptions: snapshot.preemptions };
}

describe('VllmEngine: properties over random workloads', () => {
  it('keeps its books, ends every request exactly once, respects causality and drains (any workload)', () => {
    fc.assert(
      fc.property(anyWorkload, (s) => {
        run(s);
      }),
      { numRuns: 300 },
    );
  });

  it('does the same under KV pressure, where preemption is the rule', () => {
    let preemptions = 0;
    fc.assert(
      fc.property(kvPressure, (s) => {
        preemptions += run(s).preemptions;
      }),
      { numRuns: 200 },
    );
    // The generator must actually exercise preemption, or the property proves little.
    assert.ok(preemptions > 100, `only ${preemptions} preemptions`);
  });
});
