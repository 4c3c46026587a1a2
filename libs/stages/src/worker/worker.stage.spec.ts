import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { Recorder } from '../testing/recorder.js';
import { workerHarness } from '../testing/worker-harness.js';
import { UNMARKED, type HeldRequest, type WorkerCompletion } from './held-request.js';
import type { InstanceCore } from './instance.core.js';
import type { WorkerSettings } from './worker.settings.js';

// The qwen3-14b times the cases below compute by hand are in ../testing/worker-harness.ts.

type Held = HeldRequest & { readonly tag: string };

function held(id: string, inputTokens = 512, maxTokens = 64): Held {
  return {
    id,
    inputTokens,
    maxTokens,
    priority: 3,
    attempt: 0,
    blockHashes: Array.from({ length: Math.floor(inputTokens / 16) }, (_, i) => id.charCodeAt(0) * 1_000 + i),
    tag: `driver's own field of ${id}`,
    ...UNMARKED,
  };
}

const worker = (overrides: Partial<WorkerSettings> = {}) => workerHarness<Held>(overrides);

const tokenTimes = (recorder: Recorder, id: string) => recorder.of('tokens').filter(([, r]) => (r as Held).id === id).map(([, , , atUs]) => atUs);

describe('the worker stage: one instance, one request (hand-computed)', () => {
  const { instance, recorder, agenda } = worker();
  const a = held('a');
  instance.accept(a, micros(0));

  it('takes it and waits out its queueing delay: one wake-up at 8982 µs', () => {
    expect(recorder.names()).toEqual(['received', 'accepted', 'wakeInstance']);
    expect(agenda.due('ready')).toEqual([8_982]);
    expect(a.workerArrivalUs).toBe(0);
  });

  it('prefills at 8982 µs and sends the first token when that step ends, 42 755 µs', () => {
    agenda.runUntil(42_755);
    expect(recorder.of('admitted')).toEqual([[instance, a, 0, true, 8_982]]);
    expect(recorder.of('kv')[0]?.[1]).toHaveLength(32); // the prompt's 32 full blocks are now cached
    expect(tokenTimes(recorder, 'a')).toEqual([42_755]);
    expect(recorder.of('tokens')[0]?.slice(2)).toEqual([1, 42_755, undefined]);
    expect(a.firstTokenUs).toBe(42_755);
  });

  it('decodes back to back, 13 605 µs a step, each token with the previous one’s time, and ends at 899 870 µs', () => {
    agenda.runUntil(1e9);
    const times = tokenTimes(recorder, 'a');
    expect(times).toHaveLength(64);
    expect(times.slice(1).map((t, i) => (t as number) - (times[i] as number))).toEqual(Array(63).fill(13_605));
    expect(recorder.of('tokens')[1]?.slice(3)).toEqual([56_360, 42_755]);
    const completion: WorkerCompletion = { outputTokens: 64, workerQueueUs: 8_982, prefillUs: 33_773, decodeUs: 63 * 13_605 };
    expect(recorder.of('completed')).toEqual([[instance, a, completion, 899_870]]);
    expect(recorder.of('done')).toEqual([[instance, a, 'ok', 899_870]]);
    // At each step's end: the step, then its tokens, then what it completed.
    expect(recorder.names().slice(-4)).toEqual(['stepEnded', 'tokens', 'completed', 'done']);
    expect(instance.hasWork()).toBe(false);
    expect(agenda.due()).toEqual([]);
  });
});

describe('the worker stage: steps, faults and cancels', () => {
  it('asks for each step’s end at its start plus its modelled time: the schedule never drifts', () => {
    const { instance, recorder, agenda } = worker();
    instance.accept(held('a', 512, 4), micros(0));
    agenda.runUntil(1e9);
    expect(recorder.of('wakeInstance').map(([, kind, at]) => [kind, at])).toEqual([
      ['ready', 8_982],
      ['step', 42_755],
      ['step', 56_360],
      ['step', 69_965],
      ['step', 83_570],
    ]);
  });

  it('ignores a wake-up it did not ask for', () => {
    const { instance, recorder } = worker();
    instance.accept(held('a'), micros(0));
    instance.wake('ready', micros(5_000));
    instance.wake('step', micros(9_000));
    expect(recorder.of('admitted')).toEqual([]);
  });

  it('a second request, 10 ms later, joins the running batch at the next step', () => {
    const { instance, recorder, agenda } = worker();
    instance.accept(held('a'), micros(0));
    agenda.runUntil(10_000); // a driver runs every wake-up due before the next arrival
    instance.accept(held('b'), micros(10_000));
    agenda.runUntil(1e9);
    // b is ready at 18 982, during a's prefill (8 982 → 42 755); it is admitted at 42 755 with a's
    // first decode: 512 + 1 tokens, 33 801 µs, so its first token comes at 76 556.
    expect(recorder.of('admitted').map(([, r, , , at]) => [(r as Held).id, at])).toEqual([['a', 8_982], ['b', 42_755]]);
    expect(tokenTimes(recorder, 'b')[0]).toBe(76_556);
    expect(tokenTimes(recorder, 'a')[1]).toBe(76_556);
  });

  it('an idle instance wakes for whichever waiting request is ready first, not only the first to arrive', () => {
    const { instance, recorder, agenda } = worker();
    // A 20 000-token prompt waits 8888 + 0.18489 · 20000 → 12 585 µs; a 512-token one, arriving
    // 100 µs later, is ready at 100 + 8982 = 9082 µs and must not wait for the first.
    instance.accept(held('long', 20_000, 1), micros(0));
    agenda.runUntil(100);
    instance.accept(held('short', 512, 1), micros(100));
    agenda.runUntil(1e9);
    expect(recorder.of('admitted').map(([, r, , , at]) => [(r as Held).id, at])).toEqual([['short', 9_082], ['long', 9_082 + 33_773]]);
  });

  it('a slow-down stretches every step: at 2× the prefill step ends at 8982 + 2 · 33773 µs', () => {
    const { instance, recorder, agenda } = worker();
    instance.setFaults({ slowdown: 2 });
    instance.accept(held('a', 512, 2), micros(0));
    agenda.runUntil(1e9);
    expect(tokenTimes(recorder, 'a')).toEqual([8_982 + 2 * 33_773, 8_982 + 2 * 33_773 + 2 * 13_605]);
  });

  it('with failure injection on, fails a request at once with the injected reason, and reports it done', () => {
    const { instance, recorder } = worker();
    instance.setFaults({ failureRate: 1, failureTypes: ['rate_limit'] });
    const a = held('a');
    instance.accept(a, micros(5));
    expect(recorder.of('failed')).toEqual([[instance, a, 'injected_rate_limit', 'injected failure: rate limit exceeded', 5]]);
    expect(recorder.of('done')).toEqual([[instance, a, 'injected_rate_limit', 5]]);
    expect(instance.hasWork()).toBe(false);
  });

  it('with hang on, holds a request and never runs it; a cancel ends it with the cancel’s reason', () => {
    const { instance, recorder, agenda } = worker();
    instance.setFaults({ hang: true });
    const a = held('a');
    instance.accept(a, micros(0));
    expect(recorder.of('hung')).toEqual([[instance, a]]);
    expect(agenda.due()).toEqual([]);
    expect(instance.holds('a')).toBe(true);
    expect(instance.cancel('a', 'timeout', micros(60_000_000))).toBe(true);
    expect(recorder.of('done')).toEqual([[instance, a, 'timeout', 60_000_000]]);
    expect(instance.holds('a')).toBe(false);
  });

  it('a request cancelled during a step gets none of that step’s tokens, and its KV blocks are freed', () => {
    const { instance, recorder, agenda } = worker();
    const a = held('a');
    instance.accept(a, micros(0));
    agenda.runUntil(20_000); // a's prefill step is under way (8 982 → 42 755)
    expect(instance.cancel('a', 'client_disconnected', micros(20_000))).toBe(true);
    agenda.runUntil(1e9);
    expect(recorder.of('tokens')).toEqual([]);
    expect(recorder.of('cancelled')).toEqual([[instance, a, 20_000]]);
    expect(recorder.of('done')).toEqual([[instance, a, 'client_disconnected', 20_000]]);
    expect(instance.cancel('a', 'client_disconnected', micros(50_000))).toBe(false);
  });

  it('a request no instance could serve fails at once as unservable, with the engine’s reason', () => {
    const { instance, recorder } = worker({ maxModelLen: 1_000 });
    const a = held('a', 960, 64);
    instance.accept(a, micros(0));
    expect(recorder.of('failed')[0]?.slice(2)).toEqual(['unservable', 'prompt (960) + max_tokens (64) = 1024 tokens exceeds this model’s context of 1000 tokens'.replace('’', "'"), 0]);
    expect(recorder.of('done')[0]?.slice(2)).toEqual(['unservable', 0]);
  });

  it('publishing on change: a snapshot at each arrival and at each step’s start', () => {
    const { instance, recorder, agenda } = worker({ publishOnChange: true });
    instance.accept(held('a', 512, 2), micros(0));
    agenda.runUntil(1e9);
    expect(recorder.of('load').map(([, snapshot, at]) => [at, (snapshot as { queueDepth: number; batchSize: number }).queueDepth, (snapshot as { batchSize: number }).batchSize])).toEqual([
      [0, 1, 0],
      [8_982, 0, 1],
      [42_755, 0, 0],
    ]);
  });
});

describe('the worker stage: the worker as a whole', () => {
  it('at start registers every instance, then publishes each one’s load, then ticks snapshots and heartbeats', () => {
    const { stage, recorder, agenda } = worker({ instances: 2 });
    stage.start(micros(0));
    expect(recorder.calls.filter((c) => c.name === 'lifecycle' || c.name === 'load').map((c) => [c.name, (c.args[0] as InstanceCore<Held>).instanceId])).toEqual([
      ['lifecycle', 'w-r0'],
      ['lifecycle', 'w-r1'],
      ['load', 'w-r0'],
      ['load', 'w-r1'],
    ]);
    recorder.clear();
    agenda.runUntil(1_000_000);
    expect(recorder.of('load')).toHaveLength(2 * 20);
    expect(recorder.of('lifecycle').map(([, type, at]) => [type, at])).toEqual([
      ['heartbeat', 1_000_000],
      ['heartbeat', 1_000_000],
    ]);
    stage.stop(micros(1_000_000));
    expect(recorder.of('lifecycle').slice(-2).map(([, type]) => type)).toEqual(['deregister', 'deregister']);
    recorder.clear();
    agenda.runUntil(1e9);
    expect(recorder.calls).toEqual([]);
  });

  it('a late tick stamps each snapshot with when it is really taken, and the next tick keeps the cadence', () => {
    const { stage, recorder, agenda } = worker({ instances: 1 });
    stage.start(micros(0));
    recorder.clear();
    stage.wake('snapshot', micros(50_000), micros(58_000)); // the timer fired 8 ms late
    expect(recorder.of('load').map(([, , at]) => at)).toEqual([58_000]);
    expect(agenda.due('snapshot')).toEqual([50_000, 100_000]); // the stale one, and the next on cadence
    stage.wake('snapshot', micros(50_000), micros(60_000)); // that wake-up again: already done
    expect(recorder.of('load')).toHaveLength(1);
  });

  it('sends a cancel to the instance that holds the request, and sets and reads faults on one instance or all', () => {
    const { stage, recorder } = worker({ instances: 2 });
    stage.instances[1]!.accept(held('a'), micros(0));
    expect(stage.cancel('a', 'client_disconnected', micros(1))).toBe(true);
    expect(recorder.of('cancelled')[0]?.[0]).toBe(stage.instances[1]);
    expect(stage.cancel('a', 'client_disconnected', micros(2))).toBe(false);
    expect(Object.keys(stage.setFaults(undefined, { slowdown: 3 })!)).toEqual(['w-r0', 'w-r1']);
    expect(stage.setFaults('w-r1', { hang: true })).toEqual({ 'w-r1': { slowdown: 3, failureRate: 0, failureTypes: ['server_error'], hang: true } });
    expect(stage.setFaults('nobody', {})).toBeUndefined();
    expect(stage.faults(undefined)).toEqual({
      'w-r0': { slowdown: 3, failureRate: 0, failureTypes: ['server_error'], hang: false },
      'w-r1': { slowdown: 3, failureRate: 0, failureTypes: ['server_error'], hang: true },
    });
    expect(stage.faults('nobody')).toBeUndefined();
  });

  it('announces every instance again when asked, and drains them all', () => {
    const { stage, recorder } = worker({ instances: 2 });
    stage.announce(micros(5));
    stage.drain(micros(6));
    expect(recorder.of('lifecycle').map(([, type]) => type)).toEqual(['register', 'register', 'drain', 'drain']);
  });
});
