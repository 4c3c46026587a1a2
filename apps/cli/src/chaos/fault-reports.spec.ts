import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { createFaultRegistry, type Fault } from '@sluice/workload';
import { faultReports } from './fault-reports.js';
import type { StepResult } from './timeline.js';

/** A request every 50 ms over [0, 10 s) with TTFT 100 ms, slower (600 ms) in [4 000, 5 000). */
const RECORDS: RunRecord[] = Array.from({ length: 200 }, (_, i) => {
  const arrivalMs = i * 50;
  const ttft = arrivalMs >= 4_000 && arrivalMs < 5_000 ? 600 : 100;
  return { id: `r${i}`, fairnessId: 't', sloClass: 'standard', priority: 3, arrivalMs, firstTokenMs: arrivalMs + ttft, endMs: arrivalMs + ttft + 100, outputTokens: 4, outcome: 'completed', status: 200, attempts: 1 };
});

describe('fault reports', () => {
  it('measures each fired fault from when it really fired, on the run clock', () => {
    const faults: Fault[] = [
      { atMs: 3_900, action: 'pause', target: 'router', forMs: 1_000, note: 'freeze the router' },
      { atMs: 9_000, action: 'kill', target: 'worker-1' },
      { atMs: 9_500, action: 'kill', target: 'worker-0' },
    ];
    const steps: StepResult[] = [
      { step: { atMs: 3_900, fault: 0, phase: 'start' }, firedAtMs: 4_000, doneAtMs: 4_000, detail: 'SIGSTOP pid 1' },
      { step: { atMs: 4_900, fault: 0, phase: 'undo' }, firedAtMs: 5_001, doneAtMs: 5_001, detail: 'SIGCONT pid 1' },
      { step: { atMs: 9_000, fault: 1, phase: 'start' }, firedAtMs: 9_100, doneAtMs: 9_100, error: 'no process "worker-1"' },
      { step: { atMs: 9_500, fault: 2, phase: 'start' }, firedAtMs: null, skipped: 'the workload ended first' },
    ];
    const [pause, kill, skipped] = faultReports(faults, steps, 100, RECORDS, [], createFaultRegistry());
    expect(pause).toMatchObject({
      action: 'pause',
      target: 'router',
      note: 'freeze the router',
      plannedStartMs: 4_000,
      plannedEndMs: 5_000,
      firedAtMs: 4_000,
      undoneAtMs: 5_001,
      detail: 'SIGSTOP pid 1; SIGCONT pid 1',
      error: null,
      baselineTtftP99Ms: 100,
      // The first slow request arrived at 4 000: overdue at 4 000 + 1.5 × 100.
      detectMs: 150,
      detectedBy: 'first token later than 150 ms',
      // From the undo at 5 001, the next windows are all fast.
      recoverMs: 0,
      recovery: 'recovered',
    });
    expect(kill).toMatchObject({ error: 'no process "worker-1"', detectMs: null });
    expect(skipped).toMatchObject({ firedAtMs: null, recovery: 'not fired', detail: 'the workload ended first' });
  });

  it('treats faults planned for one instant as one disturbance: the same baseline, the same evidence', () => {
    const rule = (subject: string): Fault => ({ atMs: 3_900, action: 'bus-faults', subject, delayMs: 0, jitterMs: 0, dropPercent: 0, duplicatePercent: 20, forMs: 1_000 });
    const faults = [rule('a.*'), rule('b.*')];
    const steps: StepResult[] = faults.flatMap((_, fault) => [
      { step: { atMs: 3_900, fault, phase: 'start' as const }, firedAtMs: 4_000 + fault, doneAtMs: 4_001 + fault, detail: '' },
      { step: { atMs: 4_900, fault, phase: 'undo' as const }, firedAtMs: 5_000 + fault, doneAtMs: 5_001 + fault, detail: '' },
    ]);
    const reports = faultReports(faults, steps, 100, RECORDS, [], createFaultRegistry());
    expect(reports.map((r) => [r.baselineTtftP99Ms, r.detectedBy])).toEqual([
      [100, 'first token later than 150 ms'],
      [100, 'first token later than 150 ms'],
    ]);
  });

  it("ends a fault that ends with its start (a NATS restart) when its start is done, and names each fault's target in its own words", () => {
    const faults: Fault[] = [
      { atMs: 3_900, action: 'restart-nats', forMs: 700 },
      { atMs: 8_000, action: 'stop-nats-node', node: 'busiest' },
      { atMs: 8_500, action: 'worker-faults', instanceCount: 1, slowdown: 4 },
    ];
    const steps: StepResult[] = [
      { step: { atMs: 3_900, fault: 0, phase: 'start' }, firedAtMs: 4_000, doneAtMs: 4_750, detail: 'NATS down for 700 ms, then up again' },
      { step: { atMs: 8_000, fault: 1, phase: 'start' }, firedAtMs: 8_100, doneAtMs: 8_150, detail: 'nats-1 (3 of 5 client connections): stopped, for good' },
      { step: { atMs: 8_500, fault: 2, phase: 'start' }, firedAtMs: 8_600, doneAtMs: 8_610, detail: 'knobs' },
    ];
    const [restart, node, knobs] = faultReports(faults, steps, 100, RECORDS, [], createFaultRegistry());
    expect(restart).toMatchObject({ target: 'nats', plannedEndMs: 4_700, firedAtMs: 4_000, undoneAtMs: 4_750 });
    expect(node).toMatchObject({ target: 'the busiest NATS node', undoneAtMs: null });
    expect(knobs).toMatchObject({ target: '1 worker instance', undoneAtMs: null });
  });
});
