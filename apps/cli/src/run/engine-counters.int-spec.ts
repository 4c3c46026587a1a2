import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { metricSum, runSluice } from '@sluice/testing';
import type { RunReportFile } from '@sluice/report';

/**
 * The engine section of `sluice run` (the built CLI, a child process) against a real cluster: two
 * instances in one worker process, with a KV cache small enough that requests sharing an instance
 * preempt each other. The CLI finds the worker by the config's `worker.port`, as it would in a
 * cluster `sluice up` started on its configured ports.
 */
const WORKLOAD = `
seed: 11
aggregate_rate: 40
num_requests: 24
clients:
  - id: chat
    tenant_id: acme
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    prefix_group: system
    prefix_length: 32
    input_distribution: { type: constant, params: { value: 48 } }
    output_distribution: { type: constant, params: { value: 40 } }
`;

describe('sluice run: engine counters', () => {
  let cluster: LocalCluster;
  let dir: string;
  let workerUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-engine-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    // 8 blocks: a 48-token prompt takes 3 and grows to 6, so two at once on an instance preempt.
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.instances=2', '--worker.kvBlocks=8', '--worker.timeScale=10'] });
    workerUrl = cluster.services.find((s) => s.name === 'worker')!.url;
  });
  afterAll(() => cluster?.stop());

  it('writes per-instance counters of the live instances, over the run only', async () => {
    const preemptionsBefore = await metricSum(workerUrl, 'vllm:num_preemptions_total');
    const out = join(dir, 'run');
    const run = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', out, '--json', `--worker.port=${new URL(workerUrl).port}`]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    const { engine } = report;
    expect(engine).toBeDefined();
    expect(engine!.cacheHitRateOf).toBe('prompt-tokens');
    // Two instances, named as the records name the instance that served each request.
    expect(engine!.instances).toHaveLength(2);
    const names = engine!.instances.map((i) => i.instance);
    const served = new Set(report.records.flatMap((r) => (r.instance ? [r.instance] : [])));
    expect(served.size).toBeGreaterThan(0);
    for (const instance of served) expect(names).toContain(instance);
    // The run's share of the worker's counters: what it counted since the scrape before the run.
    const preemptionsAfter = await metricSum(workerUrl, 'vllm:num_preemptions_total');
    expect(engine!.cluster.preemptions).toBe(preemptionsAfter - preemptionsBefore);
    expect(engine!.cluster.preemptions).toBe(engine!.instances.reduce((n, i) => n + i.preemptions, 0));
    expect(engine!.cluster.kvAllocationFailures).not.toBeNull();
    // The shared 32-token system prompt (2 blocks) is found in the cache on later requests.
    expect(engine!.instances.some((i) => i.cacheHitRate > 0)).toBe(true);
    expect(engine!.cluster.cacheHitRate).toBeCloseTo((engine!.instances[0]!.cacheHitRate + engine!.instances[1]!.cacheHitRate) / 2, 12);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('id="engine-counters"');
  });

  it('writes no section, and says why, when no worker answers', async () => {
    const out = join(dir, 'unreachable');
    const run = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', out, '--worker.port=1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Engine counters: not in the report: no worker /metrics answered');
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    expect(report.engine).toBeUndefined();
  });
});
