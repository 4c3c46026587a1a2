import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { terminateFault } from './terminate.fault.js';

const terminate = (target: string) => terminateFault.schema.parse({ atMs: 0, action: 'terminate', target });

describe('terminate', () => {
  it('sends SIGTERM locally; under compose `docker kill --signal TERM`, started again once it has exited', async () => {
    const r = new PortRecorder();
    expect(await liveRun(terminateFault, terminate('worker-1'), r.local(), r.controls()).start()).toBe('SIGTERM pid 4711');
    expect(await liveRun(terminateFault, terminate('worker-1'), r.compose(), r.controls()).start()).toBe('docker kill --signal TERM id-worker-1-');
    expect(r.calls).toEqual(['signal worker-1 SIGTERM', 'docker kill --signal TERM id-worker-1-0123456789abcdef', 'startAgainWhenExited worker-1']);
  });

  it('in the twin, drains a worker process; a stage cannot die there', () => {
    const r = new PortRecorder();
    expect(twinPlan(terminateFault, terminate('worker-0'), r.twin()).run?.start()).toBe('worker-0 terminated');
    expect(r.calls).toEqual(['terminateWorkerProcess worker-0']);
    expect(twinPlan(terminateFault, terminate('flow-controller'), r.twin()).notModelled).toBe("terminate of flow-controller: the twin's flow-controller cannot die (only worker processes can)");
  });
});
