import { describe, expect, it } from 'vitest';
import { liveRun, twinPlan } from '../fault-runs.js';
import { PortRecorder } from '../testing/recording-ports.js';
import { busFaultsFault } from './bus-faults.fault.js';

const rule = (extra: object) => busFaultsFault.schema.parse({ atMs: 0, action: 'bus-faults', ...extra });

describe('bus-faults', () => {
  it('sets the rule in every process by control message and clears it by its exact pattern', async () => {
    const r = new PortRecorder();
    const run = liveRun(busFaultsFault, rule({ subject: 'sluice.v1.router.submit', dropPercent: 5, forMs: 9, note: 'lossy' }), r.local(), r.controls());
    expect([await run.start(), await run.undo!()]).toEqual(['rule on sluice.v1.router.submit', 'cleared sluice.v1.router.submit']);
    expect(r.calls).toEqual(['setBusFault {"subject":"sluice.v1.router.submit","delayMs":0,"jitterMs":0,"dropPercent":5,"duplicatePercent":0}', 'clearBusFault sluice.v1.router.submit']);
  });

  it('in the twin, sets the rule on the hops it carries and says what else the pattern names', () => {
    const r = new PortRecorder();
    const plan = twinPlan(busFaultsFault, rule({ subject: 'sluice.v1.>', delayMs: 200, duplicatePercent: 5 }), r.twin());
    expect(plan.run?.start()).toBe(
      'rule on sluice.v1.> (delay 200 ms, duplicate 5%) on router → worker instance; not carried by the twin, so unfaulted: done events; duplicates change nothing (each attempt is served once)',
    );
    expect(plan.run?.undo?.()).toBe('rule on sluice.v1.> cleared');
    expect(r.calls).toEqual(['setBusRule {"subject":"sluice.v1.>","delayMs":200,"jitterMs":0,"dropPercent":0,"duplicatePercent":5}', 'clearBusRule sluice.v1.>']);
    expect(twinPlan(busFaultsFault, rule({ subject: 'sluice.v1.worker.*.kv' }), r.twin()).notModelled).toBe(
      'bus-faults on sluice.v1.worker.*.kv: no hop the twin carries matches it (request submits and load snapshots only)',
    );
  });
});
