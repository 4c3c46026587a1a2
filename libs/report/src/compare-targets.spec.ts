import { describe, expect, it } from 'vitest';
import { buildReport, type RunRecord } from '@sluice/metrics';
import { CONTROL_PLANE_STAGES, compareControlPlane, compareLatencyDifferences } from './compare-targets.js';

/** A served request: arrival at i·100 ms, first token `ttftMs` later, 4 tokens `itlMs` apart. */
function served(i: number, ttftMs: number, itlMs: number, timings?: Record<string, number>): RunRecord {
  const arrivalMs = i * 100;
  const tokenTimesMs = [0, 1, 2, 3].map((k) => arrivalMs + ttftMs + k * itlMs);
  return { id: `r${i}`, fairnessId: 't', sloClass: 's', priority: 0, arrivalMs, firstTokenMs: tokenTimesMs[0]!, tokenTimesMs, endMs: tokenTimesMs[3]!, outputTokens: 4, outcome: 'completed', status: 200, attempts: 1, ...(timings ? { timings } : {}) };
}

const TIMINGS = (scale: number) => ({ clientSendMs: 0.1 * scale, gatewayInMs: 0.2 * scale, toAdmissionMs: 0.3 * scale, admissionMs: 0.05 * scale, toFlowMs: 0.3 * scale, flowQueueMs: 1 * scale, toRouterMs: 0.3 * scale, routingMs: 0.1 * scale, toWorkerMs: 0.3 * scale, workerQueueMs: 5, prefillMs: 20 });

describe('compareLatencyDifferences', () => {
  it('gives each report’s percentiles minus the first’s, in ms, the first reading 0', () => {
    const gateway = buildReport([1, 2, 3].map((i) => served(i, 30, 10)));
    const engine = buildReport([1, 2, 3].map((i) => served(i, 26, 9)));
    const rows = compareLatencyDifferences([gateway, engine]);
    const byName = Object.fromEntries(rows.map((r) => [r.metric, r.values]));
    expect(byName['TTFT p50 − first, ms']![0]).toBe(0);
    expect(byName['TTFT p50 − first, ms']![1]).toBeCloseTo(-4, 9);
    expect(byName['ITL p99 − first, ms']![1]).toBeCloseTo(-1, 9);
    expect(byName['E2E p50 − first, ms']![1]).toBeCloseTo(-7, 9);
    for (const row of rows) expect(row.deltasPct).toEqual([null, null]);
  });

  it('reads – where a side has no value (no request completed)', () => {
    const failed: RunRecord = { id: 'r1', fairnessId: 't', sloClass: 's', priority: 0, arrivalMs: 100, endMs: 101, outputTokens: 0, outcome: 'failed', reason: 'http_500', status: 500, attempts: 1 };
    const none = buildReport([failed]);
    const rows = compareLatencyDifferences([buildReport([served(1, 30, 10)]), none]);
    expect(rows.find((r) => r.metric === 'TTFT p50 − first, ms')!.values).toEqual([0, null]);
  });
});

describe('compareControlPlane', () => {
  it('gives each stage’s p50 for the report whose answers carried stage timings, and – (never 0) for the one without', () => {
    const gateway = [served(1, 30, 10, TIMINGS(1)), served(2, 30, 10, TIMINGS(2)), served(3, 30, 10, TIMINGS(3))];
    const engine = [served(1, 26, 10), served(2, 26, 10), served(3, 26, 10)];
    const rows = compareControlPlane([gateway, engine]);
    expect(rows).toHaveLength(CONTROL_PLANE_STAGES.length + 1);
    const byName = Object.fromEntries(rows.map((r) => [r.metric, r.values]));
    expect(byName['control plane p50 ms: flow-control queue']).toEqual([2, null]);
    expect(byName['control plane p50 ms: admission']![0]).toBeCloseTo(0.1, 9);
    // The whole path per request: 2.65 ms × its scale (the worker's queue and prefill are not in it); p50 of 2.65, 5.3, 7.95.
    expect(byName['control plane p50 ms: whole path']![0]).toBeCloseTo(5.3, 9);
    expect(byName['control plane p50 ms: whole path']![1]).toBeNull();
  });

  it('has no rows when no report carries stage timings', () => {
    expect(compareControlPlane([[served(1, 30, 10)], [served(1, 26, 10)]])).toEqual([]);
  });
});
