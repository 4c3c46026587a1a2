import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport } from '@sluice/metrics';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { runSluice } from '@sluice/testing';
import { describe, expect, it } from 'vitest';

/**
 * examples/workloads/slo-deadline.yaml's effect on a live cluster, in miniature: two clients of
 * one flow, one with a tight TTFT target, under overload, sent by the built `sluice run` (the
 * targets go out as x-slo-ttft-ms). Once with FCFS, once with slo-deadline ordering: the tight
 * client's requests must wait less and meet their target more often. Only directions are
 * asserted (a shared 2-core machine makes the live path's own costs vary): the twin gives the
 * interactive client 67% → 100% attainment and a TTFT p50 of 1233 → 137 ms; one live run gave
 * a TTFT p50 of 2247 → 920 ms, its flow-control wait 2064 → 730 ms.
 */
const WORKLOAD = `
seed: 9
aggregate_rate: 30
horizon: 2.5
clients:
  - id: interactive
    tenant_id: shop
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 256 } }
    output_distribution: { type: constant, params: { value: 16 } }
    slo: { ttft_ms: 1500 }
  - id: report-writer
    tenant_id: shop
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 256 } }
    output_distribution: { type: constant, params: { value: 16 } }
    slo: { ttft_ms: 20000 }
`;

/** Two instances that flow control fills at two requests each: the rest wait in its queue. */
const CLUSTER = [...FREE_PORT_ARGS, '--worker.instances=2', '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 2}}'];

async function runOn(dir: string, name: string, extraArgs: readonly string[]): Promise<RunReportFile> {
  const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...CLUSTER, ...extraArgs] });
  try {
    // Warm-up, as a serving system is warm: V8 compiles the hot paths in every process.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: [i + 1], max_tokens: 2 }) });
      await res.text();
    }
    const out = join(dir, name);
    const run = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
  } finally {
    await cluster.stop();
  }
}

describe('slo-deadline ordering on a live cluster', () => {
  it('serves the tight-target client within its target more often than FCFS does, the same requests served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-slo-deadline-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    const fcfs = await runOn(dir, 'fcfs', []);
    const sloDeadline = await runOn(dir, 'slo-deadline', ['--flowController.defaultPriorityBand.orderingPolicyRef=slo-deadline-ordering-policy']);

    const interactive = (report: RunReportFile) => buildReport(report.records.filter((r) => r.slo?.ttftMs === 1500));
    for (const report of [fcfs, sloDeadline]) {
      expect(report.summary.conservation.books.completed).toBe(report.summary.conservation.books.requests);
      // The queue was there to be ordered.
      expect(report.records.filter((r) => (r.timings?.flowQueueMs ?? 0) > 600).length).toBeGreaterThan(10);
      expect(interactive(report).overall.requests).toBeGreaterThan(20);
    }
    const before = interactive(fcfs).goodput.attainment!;
    const after = interactive(sloDeadline).goodput.attainment!;
    // What ordering decides: the interactive requests go first, so they wait far less…
    expect(interactive(sloDeadline).overall.ttft.p50!).toBeLessThan(interactive(fcfs).overall.ttft.p50! * 0.7);
    // …and more of them make their 1.5 s.
    expect(after, `interactive attainment ${before} under FCFS, ${after} under slo-deadline`).toBeGreaterThan(before);
    expect(sloDeadline.summary.goodput.requestsPerSec).toBeGreaterThan(fcfs.summary.goodput.requestsPerSec);
  });
});
