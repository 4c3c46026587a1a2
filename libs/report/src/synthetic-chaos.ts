import type { ChaosSection } from './chaos-section.js';

/**
 * Test fixture: the chaos section of a run with a kill and a pause, one invariant of each status,
 * and names to escape. Its times fit syntheticReport()'s 4 s of requests.
 */
export const SYNTHETIC_CHAOS: ChaosSection = {
  scenario: { name: 'crash <1>', description: 'kill a worker', file: 'examples/chaos/crash.yaml', scale: 0.2 },
  target: 'local',
  t0Ms: 0,
  faults: [
    {
      index: 0,
      action: 'kill',
      target: 'worker-1',
      fault: { atMs: 1000, action: 'kill', target: 'worker-1' },
      plannedStartMs: 1000,
      plannedEndMs: null,
      firedAtMs: 1002,
      undoneAtMs: null,
      detail: 'SIGKILL pid 42',
      error: null,
      detectMs: 120,
      detectedBy: 'a stream stalled for more than 90 ms',
      recoverMs: 300,
      recovery: 'recovered',
      baselineTtftP99Ms: 60,
    },
    { index: 1, action: 'pause', target: 'router', fault: {}, plannedStartMs: 2000, plannedEndMs: 2500, firedAtMs: 2001, undoneAtMs: 2502, detail: '', error: null, detectMs: null, detectedBy: null, recoverMs: null, recovery: 'not recovered', baselineTtftP99Ms: null },
  ],
  invariants: [
    { id: 'client-outcomes', title: 'every request ended', status: 'pass', details: ['40 of 40'] },
    { id: 'stage-books', title: 'books agree', status: 'fail', details: ['✗ gateway completed 19 > workers completed 18'] },
    { id: 'gateway-books', title: 'gateway balances', status: 'skipped', details: ['skipped: gateway restarted'] },
  ],
  passed: false,
  migrations: { total: 3, byReason: { worker_lost: 3 } },
  outcomesByReason: { completed: 34 },
  processesBefore: [{ name: 'worker-1', id: '42', restarts: 0 }],
  processesAfter: [{ name: 'worker-1', id: '43', restarts: 1 }],
};
