import { buildReport, type RunRecord } from '@sluice/metrics';
import type { RunReportFile } from './run-report-file.js';

/**
 * Test fixture: a deterministic report of `n` requests, 100 ms apart, over 2 SLO classes, 2
 * tenants, 2 instances and 2 priorities; every 7th request is rejected by flow control.
 * `secondFairnessId` names the second tenant (to test escaping).
 */
export function syntheticReport(n = 40, secondFairnessId = 'tenant-b'): RunReportFile {
  const records: RunRecord[] = [];
  for (let i = 0; i < n; i++) {
    const arrivalMs = i * 100;
    const common = { id: `r${i}`, fairnessId: i % 2 === 0 ? 'tenant-a' : secondFairnessId, sloClass: i % 3 === 0 ? 'batch' : 'interactive', arrivalMs, priority: i % 2, attempts: 1 };
    if (i % 7 === 3) {
      records.push({ ...common, endMs: arrivalMs + 5, outputTokens: 0, outcome: 'rejected', stage: 'flow-control', reason: 'queue-full', status: 429 });
      continue;
    }
    const timings = { admissionMs: 1, flowQueueMs: 20 + (i % 5) * 30, routingMs: 2, workerQueueMs: 5, prefillMs: 40 + (i % 4) * 10, decodeMs: 300 };
    const firstTokenMs = arrivalMs + timings.admissionMs + timings.flowQueueMs + timings.routingMs + timings.workerQueueMs + timings.prefillMs;
    const tokenTimesMs = Array.from({ length: 11 }, (_, k) => firstTokenMs + k * 30);
    records.push({ ...common, firstTokenMs, endMs: tokenTimesMs.at(-1)!, tokenTimesMs, outputTokens: 11, outcome: 'completed', status: 200, instance: i % 4 < 2 ? 'worker-1' : 'worker-2', timings });
  }
  return {
    version: 1,
    tool: 'sluice run',
    startedAt: '2025-01-01T00:00:00.000Z',
    gateway: 'http://127.0.0.1:8080',
    workload: { file: 'workloads/synthetic.yaml', spec: {}, requests: n },
    config: null,
    summary: buildReport(records, { expectedRequests: n }),
    records,
  };
}
