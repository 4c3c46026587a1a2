import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { killFault } from './kill.fault.js';

const kill = (target: string) => killFault.schema.parse({ atMs: 0, action: 'kill', target });

describe('kill', () => {
  it('sends SIGKILL on a local cluster (`worker` is worker-0), nothing to undo: the supervisor restarts it', async () => {
    const r = new PortRecorder();
    const run = liveRun(killFault, kill('worker'), r.local(), r.controls());
    expect(await run.start()).toBe('SIGKILL pid 4711');
    expect(run.undo).toBeUndefined();
    expect(r.calls).toEqual(['signal worker-0 SIGKILL']);
  });

  it('is `docker kill` under compose, and the container is started again once it has exited', async () => {
    const r = new PortRecorder();
    expect(await liveRun(killFault, kill('router'), r.compose(), r.controls()).start()).toBe('docker kill id-router-01');
    expect(r.calls).toEqual(['docker kill id-router-0123456789abcdef', 'startAgainWhenExited router']);
  });

  it('in the twin, takes a worker process it has; a stage, the gateway or a process it lacks is not modelled', () => {
    const r = new PortRecorder();
    const plan = twinPlan(killFault, kill('worker-1'), r.twin());
    expect(plan.target).toBe('worker-1');
    expect(plan.run?.start()).toBe('worker-1 killed');
    expect(r.calls).toEqual(['killWorkerProcess worker-1']);
    expect(twinPlan(killFault, kill('worker'), r.twin()).target).toBe('worker-0');
    expect(twinPlan(killFault, kill('router'), r.twin())).toEqual({ target: 'router', notModelled: "kill of router: the twin's router cannot die (only worker processes can)" });
    expect(twinPlan(killFault, kill('worker-5'), r.twin())).toEqual({ target: 'worker-5', notModelled: 'kill of worker-5: the twin has no worker-5 (worker.processes is 2)' });
  });
});
