import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { workerFaultsFault } from './worker-faults.fault.js';

const knobs = (extra: object) => workerFaultsFault.schema.parse({ atMs: 0, action: 'worker-faults', ...extra });

async function live(extra: object): Promise<string[]> {
  const r = new PortRecorder();
  const run = liveRun(workerFaultsFault, knobs(extra), r.compose(), r.controls());
  await run.start();
  await run.undo!();
  return r.calls;
}

describe('worker-faults', () => {
  it('sets the knobs it names by control message and resets only those to their defaults', async () => {
    expect(await live({ instance: 'w-1', slowdown: 4, forMs: 5 })).toEqual(['setWorkerFaults {"instanceId":"w-1","faults":{"slowdown":4}}', 'setWorkerFaults {"instanceId":"w-1","faults":{"slowdown":1}}']);
    expect(await live({ failureRate: 0.5, hang: true })).toEqual(['setWorkerFaults {"faults":{"failureRate":0.5,"hang":true}}', 'setWorkerFaults {"faults":{"failureRate":0,"hang":false}}']);
  });

  it('picks instances by count from the sorted ids when it fires, and resets those same ones', async () => {
    expect(await live({ instanceCount: 2, slowdown: 3 })).toEqual([
      'setWorkerFaults {"instanceId":"w-a-r0","faults":{"slowdown":3}}',
      'setWorkerFaults {"instanceId":"w-a-r1","faults":{"slowdown":3}}',
      'setWorkerFaults {"instanceId":"w-a-r0","faults":{"slowdown":1}}',
      'setWorkerFaults {"instanceId":"w-a-r1","faults":{"slowdown":1}}',
    ]);
  });

  it('names what it hits: an instance, a count, or all', () => {
    expect([{ instance: 'w-1' }, { instanceCount: 1 }, { instanceCount: 3 }, {}].map((f) => workerFaultsFault.target(knobs(f)))).toEqual(['w-1', '1 worker instance', '3 worker instances', 'every worker instance']);
  });

  it("in the twin, sets the knobs on the twin's instances; a live instance id is none of them", () => {
    const r = new PortRecorder();
    const plan = twinPlan(workerFaultsFault, knobs({ instanceCount: 2, hang: true, forMs: 5 }), r.twin());
    expect(plan.target).toBe('2 instances (w-a-r0, w-a-r1)');
    expect([plan.run?.start(), plan.run?.undo?.()]).toEqual(['knobs {"hang":true} on 2 instances (w-a-r0, w-a-r1)', 'knobs {"hang":false} on 2 instances (w-a-r0, w-a-r1)']);
    expect(r.calls).toEqual(['setInstanceFaults w-a-r0 {"hang":true}', 'setInstanceFaults w-a-r1 {"hang":true}', 'setInstanceFaults w-a-r0 {"hang":false}', 'setInstanceFaults w-a-r1 {"hang":false}']);
    expect(twinPlan(workerFaultsFault, knobs({ slowdown: 2 }), r.twin()).target).toBe('every instance');
    expect(twinPlan(workerFaultsFault, knobs({ instance: 'w-b-r1', slowdown: 2 }), r.twin()).target).toBe('w-b-r1');
    expect(twinPlan(workerFaultsFault, knobs({ instance: 'live-7f3a-r0', slowdown: 2 }), r.twin()).notModelled).toBe(
      'worker-faults on instance live-7f3a-r0: the twin has no such instance (its ids are w-a-r0 … w-b-r1; instanceCount picks by count)',
    );
  });
});
