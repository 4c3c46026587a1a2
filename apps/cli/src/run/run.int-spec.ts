import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { metricSum, runSluice } from '@sluice/testing';
import type { RunReportFile } from '@sluice/report';

/**
 * `sluice run` as a user runs it (the built CLI, a child process) against a real cluster at
 * timeScale 1, checked against what the workers measured themselves.
 */
const WORKLOAD = `
seed: 5
aggregate_rate: 25
num_requests: 60
clients:
  - id: chat
    tenant_id: acme
    slo_class: critical
    rate_fraction: 2
    arrival: { process: poisson }
    prefix_group: system
    prefix_length: 128
    input_distribution: { type: gaussian, params: { mean: 64, std_dev: 16, min: 16, max: 128 } }
    output_distribution: { type: constant, params: { value: 8 } }
  - id: batch
    tenant_id: globex
    slo_class: sheddable
    rate_fraction: 1
    arrival: { process: gamma, cv: 2 }
    input_distribution: { type: constant, params: { value: 256 } }
    output_distribution: { type: constant, params: { value: 4 } }
`;

describe('sluice run', () => {
  let cluster: LocalCluster;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-run-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    // A sheddable band of 2 behind one slot, so some requests are turned away and the books have more than one column.
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        '--worker.instances=2',
        '--flowController.priorityBands=[{priority: -2, maxRequests: 2}]',
        '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 2}}',
      ],
    });
  });
  afterAll(() => cluster?.stop());

  it('sends the workload open-loop and writes a report whose books balance and whose TTFT agrees with the workers’', async () => {
    const worker = cluster.services.find((s) => s.name === 'worker')!.url;
    // Warm-up, as a serving system is warm: V8 compiles the hot paths in every process.
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: [i + 1], max_tokens: 2 }) });
      await res.text();
    }
    const gatewayBefore = await metricSum(cluster.gatewayUrl, 'sluice_requests_total');
    const ttftSumBefore = await metricSum(worker, 'vllm:time_to_first_token_seconds_sum');
    const ttftCountBefore = await metricSum(worker, 'vllm:time_to_first_token_seconds_count');

    const out = join(dir, 'run');
    const run = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { report: string; html: string };
    expect(printed.report).toBe(join(out, 'report.json'));
    const report = JSON.parse(readFileSync(printed.report, 'utf8')) as RunReportFile;

    // requests = completed + rejected + dropped + failed, at the client and at the gateway.
    const { books, check } = report.summary.conservation;
    expect(check.balanced).toBe(true);
    expect(books.requests).toBe(60);
    expect(books.completed + books.rejected.total + books.dropped.total + books.failed.total).toBe(60);
    expect(books.completed).toBeGreaterThan(30);
    expect(books.rejected.byReason.flow_capacity ?? 0).toBeGreaterThan(0);
    expect((await metricSum(cluster.gatewayUrl, 'sluice_requests_total')) - gatewayBefore).toBe(60);

    // Every completed request carries where and how it was served.
    const completed = report.records.filter((r) => r.outcome === 'completed');
    for (const r of completed) {
      expect(r.instance).toMatch(/./);
      expect(r.timings?.prefillMs).toBeGreaterThan(0);
      expect(r.outputTokens).toBe(r.sloClass === 'critical' ? 8 : 4);
    }
    expect(Object.keys(report.summary.bySloClass).sort()).toEqual(['critical', 'sheddable']);
    expect(Object.keys(report.summary.byFairnessId).sort()).toEqual(['acme', 'globex']);

    // The workers' own TTFT histogram (arrival at the instance → first token) over this run is the
    // mean of what they reported per request (worker queue + prefill)…
    const workerTtft = (r: (typeof completed)[number]) => r.timings!.workerQueueMs! + r.timings!.prefillMs!;
    const histogramMeanMs = (1000 * ((await metricSum(worker, 'vllm:time_to_first_token_seconds_sum')) - ttftSumBefore)) / ((await metricSum(worker, 'vllm:time_to_first_token_seconds_count')) - ttftCountBefore);
    expect(Math.abs(histogramMeanMs - completed.reduce((sum, r) => sum + workerTtft(r), 0) / completed.length)).toBeLessThan(1);
    // …and each client TTFT is that request's worker TTFT plus its wait in flow control plus the
    // path, which is never negative. (How much the path costs is a benchmark, not an assertion:
    // docs/benchmarks.md.)
    for (const r of completed) expect(r.firstTokenMs! - r.arrivalMs - workerTtft(r) - r.timings!.flowQueueMs!).toBeGreaterThan(0);

    expect(readFileSync(printed.html, 'utf8')).toContain('data-plot=');
  });

  it('names the key of a bad workload and exits 2', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, WORKLOAD.replace('aggregate_rate: 25', 'aggregate_rate: -1'));
    const run = await runSluice(['run', bad, '--gateway', cluster.gatewayUrl]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('aggregate_rate: must be > 0');
  });
});
