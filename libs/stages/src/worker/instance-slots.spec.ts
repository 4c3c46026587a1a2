import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { workerHarness } from '../testing/worker-harness.js';
import { UNMARKED, type HeldRequest } from './held-request.js';

const held = (id: string, maxTokens = 64): HeldRequest => ({ id, inputTokens: 512, maxTokens, priority: 3, attempt: 0, blockHashes: Array.from({ length: 32 }, (_, i) => id.charCodeAt(0) * 1_000 + i), ...UNMARKED });

/** Four instances, one in the cluster at start; a model load of 2 s; a 5 s drain grace. */
function scalable() {
  const harness = workerHarness<HeldRequest>({ instances: 4, initialInstances: 1, startupUs: micros(2_000_000), drainGraceUs: micros(5_000_000) });
  harness.stage.start(micros(0));
  return harness;
}

const lifecycles = (recorder: ReturnType<typeof scalable>['recorder']) => recorder.of('lifecycle').map(([instance, type, atUs]) => `${(instance as { instanceId: string }).instanceId} ${type as string} ${atUs as number}`);

describe('worker instances under an autoscaler', () => {
  it('registers only the initial instances; the rest are parked and take nothing', () => {
    const { stage, recorder } = scalable();
    expect(lifecycles(recorder)).toEqual(['w-r0 register 0']);
    expect(stage.slots.counts()).toEqual({ active: 1, starting: 0, ready: 1, draining: 0 });
    expect(stage.slots.takesWork('w-r0')).toBe(true);
    expect(stage.slots.takesWork('w-r1')).toBe(false);
  });

  it('a started instance registers when its model load has passed, with an empty cache, not before', () => {
    const { stage, recorder, agenda } = scalable();
    recorder.clear();
    expect(stage.setActive(3, micros(1_000_000))).toEqual({ active: 3, starting: 2, ready: 1, draining: 0 });
    expect(stage.slots.stateOf('w-r1')).toBe('starting');
    expect(stage.slots.takesWork('w-r1')).toBe(false);
    agenda.runUntil(2_999_999);
    expect(recorder.of('lifecycle').filter(([, type]) => type === 'register')).toEqual([]);
    agenda.runUntil(3_000_000);
    expect(lifecycles(recorder).filter((l) => l.includes('register'))).toEqual(['w-r1 register 3000000', 'w-r2 register 3000000']);
    expect(recorder.of('kv').filter(([instance, , , atUs, cleared]) => (instance as { instanceId: string }).instanceId === 'w-r1' && atUs === 3_000_000 && cleared === true)).toHaveLength(1);
    expect(stage.slots.counts()).toEqual({ active: 3, starting: 0, ready: 3, draining: 0 });
  });

  it('a scale-down removes one still loading before a ready one, the newest first', () => {
    const { stage, recorder, agenda } = scalable();
    stage.setActive(3, micros(0));
    agenda.runUntil(2_000_000); // r1, r2 ready
    stage.setActive(4, micros(2_500_000)); // r3 loading
    recorder.clear();
    expect(stage.setActive(2, micros(2_600_000))).toEqual({ active: 2, starting: 0, ready: 2, draining: 0 });
    expect(stage.slots.stateOf('w-r3')).toBe('parked'); // never registered: nothing to announce
    // r2 drained and, holding nothing, left at once.
    expect(lifecycles(recorder)).toEqual(['w-r2 drain 2600000', 'w-r2 deregister 2600000']);
    agenda.runUntil(10_000_000);
    expect(lifecycles(recorder).some((l) => l.startsWith('w-r3 register'))).toBe(false);
  });

  it('a draining instance finishes what it holds, then leaves; past its grace it hands the rest back', () => {
    const { stage, recorder, agenda } = scalable();
    stage.setActive(2, micros(0));
    agenda.runUntil(2_000_000);
    const r1 = stage.instance('w-r1')!;
    r1.accept(held('a', 16), micros(2_000_000)); // about 0.25 s of work
    r1.accept(held('b', 2_000), micros(2_000_000)); // about 27 s: past the grace
    recorder.clear();
    stage.setActive(1, micros(2_100_000));
    expect(stage.slots.stateOf('w-r1')).toBe('draining');
    expect(stage.slots.takesWork('w-r1')).toBe(false);
    agenda.runUntil(7_099_999);
    expect(recorder.of('completed').map(([, r]) => (r as HeldRequest).id)).toEqual(['a']);
    expect(recorder.of('handedBack')).toEqual([]);
    agenda.runUntil(7_200_000); // the grace ends at 7.1 s; the next snapshot tick settles it
    expect(recorder.of('handedBack').map(([, r]) => (r as HeldRequest).id)).toEqual(['b']);
    expect(lifecycles(recorder).at(-1)).toMatch(/^w-r1 deregister 71/);
    expect(stage.slots.stateOf('w-r1')).toBe('parked');
  });

  it('an instance started again is a new engine: the prefix it cached before is gone', () => {
    const { stage, recorder, agenda } = scalable();
    stage.setActive(2, micros(0));
    agenda.runUntil(2_000_000);
    const r1 = stage.instance('w-r1')!;
    r1.accept(held('a', 4), micros(2_000_000));
    agenda.runUntil(3_000_000);
    stage.setActive(1, micros(3_000_000)); // idle: parked at once
    stage.setActive(2, micros(3_000_000));
    agenda.runUntil(5_000_000);
    recorder.clear();
    r1.accept(held('a', 4), micros(5_000_000));
    agenda.runUntil(6_000_000);
    expect(recorder.of('admitted')[0]?.[2]).toBe(0); // no cached tokens
  });

  it('heartbeats and snapshots come only from the instances in the cluster', () => {
    const { recorder, agenda } = scalable();
    recorder.clear();
    agenda.runUntil(1_000_000);
    expect(new Set(recorder.of('load').map(([instance]) => (instance as { instanceId: string }).instanceId))).toEqual(new Set(['w-r0']));
    expect(lifecycles(recorder)).toEqual(['w-r0 heartbeat 1000000']);
  });
});

describe('a worker pod that loads its model at start (loadModelAtStart)', () => {
  it('registers its instances only when the load has passed', () => {
    const { stage, recorder, agenda } = workerHarness<HeldRequest>({ instances: 2, startupUs: micros(2_000_000), loadModelAtStart: true });
    stage.start(micros(1_000));
    expect(recorder.of('lifecycle')).toEqual([]);
    expect(stage.slots.allLoaded()).toBe(false);
    expect(stage.slots.takesWork('w-r0')).toBe(false);
    agenda.runUntil(2_000_999);
    expect(recorder.of('lifecycle').filter(([, type]) => type === 'register')).toEqual([]);
    agenda.runUntil(2_001_000);
    expect(lifecycles(recorder).filter((l) => l.includes('register'))).toEqual(['w-r0 register 2001000', 'w-r1 register 2001000']);
    expect(stage.slots.allLoaded()).toBe(true);
  });
});
