import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricSum, runSluice, sharedCluster } from '@sluice/testing';
import type { RunReportFile } from '@sluice/report';
import { generateWorkloadRequests, parseWorkloadSpec } from '@sluice/workload';

/**
 * `sluice run --target` as a user runs it (the built CLI, a child process), against the one real
 * OpenAI-compatible endpoint a test machine has: the gateway of a real cluster, reached once as
 * sluice's gateway and once as a foreign endpoint. Same workload, same books; the target run
 * without what only sluice's own path gives, and saying so. The cluster is the one the
 * integration-shared project starts for the files that only observe (libs/testing/src/shared-cluster.ts);
 * the gateway's counters are read as differences.
 */
const WORKLOAD = `
seed: 11
aggregate_rate: 20
num_requests: 40
clients:
  - id: chat
    tenant_id: acme
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: gaussian, params: { mean: 64, std_dev: 16, min: 16, max: 128 } }
    output_distribution: { type: constant, params: { value: 4 } }
`;

const NO_KEY = { OPENAI_API_KEY: '' };

describe('sluice run --target', () => {
  const cluster = sharedCluster();
  let dir: string;
  const reports = new Map<string, RunReportFile>();

  /** Runs the workload with these flags into DIR/name and reads its report.json. */
  async function run(name: string, flags: readonly string[]): Promise<RunReportFile> {
    const out = join(dir, name);
    const result = await runSluice(['run', join(dir, 'workload.yaml'), ...flags, '--out', out, '--json'], { env: NO_KEY });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    reports.set(name, report);
    return report;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-target-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
  });

  it('drives the endpoint with the same workload: the same requests and outcomes as through --gateway, every one reaching it', async () => {
    const before = await metricSum(cluster.gatewayUrl, 'sluice_requests_total');
    const viaGateway = await run('gateway', ['--gateway', cluster.gatewayUrl]);
    const afterGateway = await metricSum(cluster.gatewayUrl, 'sluice_requests_total');
    // The base URL as vLLM prints it, with /v1.
    const viaTarget = await run('target', ['--target', `${cluster.gatewayUrl}/v1`]);
    expect(afterGateway - before).toBe(40);
    expect((await metricSum(cluster.gatewayUrl, 'sluice_requests_total')) - afterGateway).toBe(40);

    for (const report of [viaGateway, viaTarget]) {
      expect(report.summary.conservation.check.balanced).toBe(true);
      expect(report.records).toHaveLength(40);
    }
    const outcomes = (r: RunReportFile) => r.records.map((x) => [x.id, x.outcome, x.outputTokens]).sort();
    expect(outcomes(viaTarget)).toEqual(outcomes(viaGateway));
    expect(viaTarget.summary.conservation.books.completed).toBe(40);
  });

  it('leaves out, and names, what a foreign endpoint does not give: no stage timings, instance or engine counters, never zeros', () => {
    const report = reports.get('target')!;
    expect(report.target).toMatchObject({ url: cluster.gatewayUrl, model: 'qwen3-14b', requestHeaders: 'openai' });
    expect(report.target!.absent.map((a) => a.split(':')[0])).toEqual(['stage timings and serving instance', 'engine counters']);
    expect(report.engine).toBeUndefined();
    expect(report.config).toBeNull();
    for (const r of report.records) {
      expect(r.timings).toBeUndefined();
      expect(r.instance).toBeUndefined();
    }
    // The report still groups by the workload's tenants: the client knows them whatever it sent.
    expect(Object.keys(report.summary.byFairnessId)).toEqual(['acme']);
    expect(reports.get('gateway')!.target).toBeUndefined();
  });

  it('counts every latency from the scheduled send and keeps the client’s lag per request and in summary', () => {
    const scheduled = generateWorkloadRequests(parseWorkloadSpec(WORKLOAD)).map((r) => r.arrivalMs);
    for (const name of ['gateway', 'target']) {
      const report = reports.get(name)!;
      for (const r of report.records) {
        const due = scheduled[Number(r.id.slice(1))]!;
        // The arrival is the schedule; a request the run loop's ms-grained timer let out early
        // counts from its actual send (and has no lag).
        expect(r.clientLagMs).toBeGreaterThanOrEqual(0);
        if (r.clientLagMs! > 0) expect(r.arrivalMs).toBe(due);
        else expect(due - r.arrivalMs).toBeGreaterThanOrEqual(0);
        expect(due - r.arrivalMs).toBeLessThan(2);
        expect(r.firstTokenMs! - r.arrivalMs).toBeGreaterThanOrEqual(r.clientLagMs!);
      }
      const lags = report.records.map((r) => r.clientLagMs!).sort((a, b) => a - b);
      expect(report.clientLag).toMatchObject({ requests: 40, maxMs: lags.at(-1) });
    }
  });

  it('sends sluice’s headers to a target when asked, and then the report has the stage timings', async () => {
    const report = await run('target-sluice-headers', ['--target', cluster.gatewayUrl, '--sluice-headers']);
    expect(report.target).toMatchObject({ requestHeaders: 'sluice', absent: [expect.stringMatching(/^engine counters/)] });
    const completed = report.records.filter((r) => r.outcome === 'completed');
    expect(completed).toHaveLength(40);
    for (const r of completed) expect(r.timings?.prefillMs).toBeGreaterThan(0);
  });

  it('compares the two endpoints: differences in ms, and the control plane’s cost per stage where one side timed it', async () => {
    const compare = await runSluice(['compare', join(dir, 'gateway', 'report.json'), join(dir, 'target', 'report.json'), '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    const { runs, rows } = JSON.parse(compare.stdout) as { runs: string[]; rows: { metric: string; values: (number | null)[] }[] };
    expect(runs).toEqual(['gateway', 'target']);
    const row = (metric: string) => rows.find((r) => r.metric === metric)!.values;
    const ttft = (name: string) => reports.get(name)!.summary.overall.ttft.p50!;
    expect(row('TTFT p50 − first, ms')[0]).toBe(0);
    expect(row('TTFT p50 − first, ms')[1]).toBeCloseTo(ttft('target') - ttft('gateway'), 9);
    const path = row('control plane p50 ms: whole path');
    expect(path[0]).toBeGreaterThan(0);
    expect(path[1]).toBeNull();
    expect(row('control plane p50 ms: routing')[1]).toBeNull();
  });

  it('refuses flags that could not take effect, naming them', async () => {
    const both = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--target', cluster.gatewayUrl], { env: NO_KEY });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--gateway and --target');
    const alone = await runSluice(['run', join(dir, 'workload.yaml'), '--target-model', 'x', '--sluice-headers'], { env: NO_KEY });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--target-model goes with --target');
    expect(alone.stderr).toContain('--sluice-headers goes with --target');
  });
});
