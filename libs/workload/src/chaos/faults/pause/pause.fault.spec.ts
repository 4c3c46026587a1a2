import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { pauseFault } from './pause.fault.js';

const pause = (target: string) => pauseFault.schema.parse({ atMs: 0, action: 'pause', target, forMs: 5 });

describe('pause', () => {
  it('is SIGSTOP then SIGCONT locally, docker pause then unpause under compose', async () => {
    const r = new PortRecorder();
    const local = liveRun(pauseFault, pause('router'), r.local(), r.controls());
    expect([await local.start(), await local.undo!()]).toEqual(['SIGSTOP pid 4711', 'SIGCONT pid 4711']);
    const compose = liveRun(pauseFault, pause('worker'), r.compose(), r.controls());
    expect([await compose.start(), await compose.undo!()]).toEqual(['docker pause id-worker-0-', 'docker unpause id-worker-0-']);
    expect(r.calls).toEqual(['signal router SIGSTOP', 'signal router SIGCONT', 'docker pause id-worker-0-0123456789abcdef', 'docker unpause id-worker-0-0123456789abcdef']);
  });

  it("in the twin, closes a stage's door and opens it again; the gateway and the workers have none", () => {
    const r = new PortRecorder();
    const plan = twinPlan(pauseFault, pause('flow-controller'), r.twin());
    expect([plan.run?.start(), plan.run?.undo?.()]).toEqual(['flow-controller paused: what it is sent waits', 'flow-controller continued: 3 messages and wake-ups handled']);
    expect(r.calls).toEqual(['pauseStage flow-controller', 'resumeStage flow-controller']);
    expect(twinPlan(pauseFault, pause('worker-0'), r.twin())).toEqual({ target: 'worker-0', notModelled: 'pause of worker-0: only admission, flow-controller and router can be paused in the twin' });
  });
});
