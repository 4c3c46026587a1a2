import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';
import { runSluice } from '@sluice/testing';
import type { RunReport } from '@sluice/metrics';
import type { TuneFile } from './tune-file.js';

/**
 * `sluice tune` as a user runs it: the built CLI, worker threads, the real twin, on a space small
 * enough for seconds. What it must keep: trials are real twin runs (a trial's figures are what
 * `sluice simulate` gives for its flags), the same space gives the same trials at any
 * parallelism, every trial stays in its ranges and is feasible exactly when its constraint
 * values say so, and --live runs the best candidate on a real cluster.
 */
const WORKLOAD = `
seed: 3
aggregate_rate: 40
num_requests: 80
clients:
  - id: critical
    tenant_id: acme
    slo_class: critical
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 1024 } }
    output_distribution: { type: constant, params: { value: 8 } }
  - id: sheddable
    tenant_id: globex
    slo_class: sheddable
    rate_fraction: 2
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 1024 } }
    output_distribution: { type: constant, params: { value: 8 } }
`;

const space = (extra = '') => `
base:
  set:
    worker.instances: 1
    admission.policy: slo-predictive
workload: workload.yaml
parameters:
  admission.policies.slo-predictive.budgetsUs.sheddable: { min: 20000, max: 2000000, log: true }
  admission.policies.slo-predictive.headroom: { min: 0.5, max: 2 }
objective:
  maximize: throughput.requestsPerSec
constraints:
  - metric: ttft.p99
    sloClass: critical
    max: 400
trials: 6
batchSize: 3
startupTrials: 3
seed: 5
confirm: 1
${extra}`;

const HEADROOM = 'admission.policies.slo-predictive.headroom';
const BUDGET = 'admission.policies.slo-predictive.budgetsUs.sheddable';

describe('sluice tune', () => {
  let dir: string;
  let tune: TuneFile;
  let stdout: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-tune-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    writeFileSync(join(dir, 'space.yaml'), space());
    const run = await runSluice(['tune', join(dir, 'space.yaml'), '--out', join(dir, 'p2'), '--parallelism', '2'], { timeoutMs: 60_000 });
    expect(run.stderr).toContain('6/6 trials');
    expect(run.code, run.stderr).toBe(0);
    stdout = run.stdout;
    tune = JSON.parse(readFileSync(join(dir, 'p2', 'tune.json'), 'utf8')) as TuneFile;
  });

  it('writes every trial with its settings in range, its values, and feasible exactly when the constraint holds', () => {
    expect(tune.trials.map((t) => t.number)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const t of tune.trials) {
      const headroom = t.params[HEADROOM] as number;
      const budget = t.params[BUDGET] as number;
      expect(headroom >= 0.5 && headroom <= 2, `headroom ${headroom}`).toBe(true);
      expect(budget >= 20_000 && budget <= 2_000_000, `budget ${budget}`).toBe(true);
      expect(t.objectives[0]).toBeGreaterThan(0);
      const p99 = t.constraints[0];
      expect(t.feasible).toBe(p99 !== null && p99 !== undefined && p99 <= 400);
      expect(t.durationMs).toBeGreaterThan(0);
    }
    expect(tune.parallelism).toBe(2);
    expect(tune.bestSoFar).toHaveLength(6);
    expect(tune.best).toHaveLength(1);
    expect(tune.pareto[0]).toMatchObject({ x: 'ttft.p99 (critical)', y: 'throughput.requestsPerSec', directions: ['minimize', 'maximize'], xBound: { max: 400 } });
    expect(stdout).toContain(`trial #${tune.best[0]}`);
  });

  it('gives a trial the figures `sluice simulate` gives for the same flags', async () => {
    const trial = tune.trials[4]!;
    const flags = ['--worker.instances=1', '--admission.policy=slo-predictive', ...Object.entries(trial.params).map(([k, v]) => `--${k}=${JSON.stringify(v)}`)];
    const sim = await runSluice(['simulate', join(dir, 'workload.yaml'), ...flags, '--seed', String(tune.seed), '--out', join(dir, 'sim'), '--json']);
    expect(sim.code, sim.stderr).toBe(0);
    const summary = (JSON.parse(sim.stdout) as { summary: RunReport }).summary;
    expect(trial.objectives[0]).toBe(summary.throughput.requestsPerSec);
    expect(trial.constraints[0]).toBe(summary.bySloClass.critical!.ttft.p99);
  });

  it('gives the same trials at parallelism 1: the batch and the seed decide them, not the threads', async () => {
    const run = await runSluice(['tune', join(dir, 'space.yaml'), '--out', join(dir, 'p1'), '--parallelism', '1'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const serial = JSON.parse(readFileSync(join(dir, 'p1', 'tune.json'), 'utf8')) as TuneFile;
    const strip = (f: TuneFile) => f.trials.map(({ durationMs: _, ...rest }) => rest);
    expect(strip(serial)).toEqual(strip(tune));
  });

  it('with workloadSeeds, judges a trial on the mean of a run per workload seed', async () => {
    writeFileSync(join(dir, 'seeds.yaml'), space('workloadSeeds: [3, 4]').replace('trials: 6', 'trials: 2'));
    const run = await runSluice(['tune', join(dir, 'seeds.yaml'), '--out', join(dir, 'seeds')], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const seeded = JSON.parse(readFileSync(join(dir, 'seeds', 'tune.json'), 'utf8')) as TuneFile;
    expect(seeded.workloadSeeds).toEqual([3, 4]);
    const trial = seeded.trials[1]!;
    const flags = ['--worker.instances=1', '--admission.policy=slo-predictive', ...Object.entries(trial.params).map(([k, v]) => `--${k}=${JSON.stringify(v)}`)];
    const values: number[] = [];
    for (const workloadSeed of [3, 4]) {
      writeFileSync(join(dir, `workload-${workloadSeed}.yaml`), WORKLOAD.replace('seed: 3', `seed: ${workloadSeed}`));
      const sim = await runSluice(['simulate', join(dir, `workload-${workloadSeed}.yaml`), ...flags, '--seed', String(seeded.seed), '--out', join(dir, `sim-${workloadSeed}`), '--json']);
      expect(sim.code, sim.stderr).toBe(0);
      values.push((JSON.parse(sim.stdout) as { summary: RunReport }).summary.throughput.requestsPerSec);
    }
    expect(values[0]).not.toBe(values[1]);
    expect(trial.objectives[0]).toBeCloseTo((values[0]! + values[1]!) / 2, 12);
  });

  it('draws the convergence and Pareto plots in report.html (headless chromium runs its script)', async () => {
    const html = readFileSync(join(dir, 'p2', 'report.html'), 'utf8');
    expect(html).toContain('base config');
    const { stdout: dom } = await promisify(execFile)('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--dump-dom', pathToFileURL(join(dir, 'p2', 'report.html')).href], { timeout: 45_000, maxBuffer: 16 * 1024 * 1024 });
    expect(dom).not.toMatch(/<body[^>]*data-error/);
    const drawn = Object.fromEntries([...dom.matchAll(/<svg\b[^>]*\bdata-plot="([^"]*)"[^>]*\bdata-drawn="(\d+)"/g)].map((m) => [m[1], Number(m[2])]));
    // Best so far; every trial, feasible and not (this space has both); the trials and the front.
    expect(drawn).toEqual({ convergence: 1, trials: 2, 'pareto-0': 2 });
  });

  it('refuses, naming the key, a metric the report does not have, a parameter of a policy that does not run, seeds for a trace and --gateway', async () => {
    writeFileSync(join(dir, 'bad-metric.yaml'), space().replace('maximize: throughput.requestsPerSec', 'maximize: throughput.tokensPerFortnight'));
    const badMetric = await runSluice(['tune', join(dir, 'bad-metric.yaml'), '--out', join(dir, 'bad')]);
    expect(badMetric.code).toBe(2);
    expect(badMetric.stderr).toMatch(/objective\.maximize: no "tokensPerFortnight" in throughput; it has: /);

    writeFileSync(join(dir, 'inert.yaml'), space().replace('admission.policy: slo-predictive', 'admission.policy: always-admit'));
    const inert = await runSluice(['tune', join(dir, 'inert.yaml'), '--out', join(dir, 'bad')]);
    expect(inert.code).toBe(2);
    expect(inert.stderr).toContain(`parameters.${HEADROOM}: admission.policy is "always-admit", so slo-predictive's parameters take no effect`);
    writeFileSync(join(dir, 'trace.yaml'), space('workloadSeeds: [1, 2]').replace('workload: workload.yaml', `workload: ${join(REPO_ROOT, 'examples', 'traces', 'small.yaml')}`));
    const trace = await runSluice(['tune', join(dir, 'trace.yaml'), '--out', join(dir, 'bad')]);
    expect(trace.code).toBe(2);
    expect(trace.stderr).toMatch(/workloadSeeds: .*small\.yaml is a trace, whose arrivals are fixed/);

    const gateway = await runSluice(['tune', join(dir, 'space.yaml'), '--gateway', 'http://127.0.0.1:8080']);
    expect(gateway.code).toBe(2);
    expect(gateway.stderr).toContain('--gateway: a running cluster cannot take each candidate');
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  });

  it('--live runs the best candidate on a real cluster and puts its figures beside the twin’s', async () => {
    writeFileSync(join(dir, 'live.yaml'), space('').replace('trials: 6', 'trials: 2'));
    const run = await runSluice(['tune', join(dir, 'live.yaml'), '--out', join(dir, 'live'), '--live'], { timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    const live = JSON.parse(readFileSync(join(dir, 'live', 'tune.json'), 'utf8')) as TuneFile;
    expect(live.live).toHaveLength(1);
    const entry = live.live![0]!;
    expect(entry.number).toBe(live.best[0]);
    expect(entry.live[0]).toBeGreaterThan(0);
    expect(entry.reports).toHaveLength(1);
    const report = JSON.parse(readFileSync(entry.reports[0]!, 'utf8')) as { tool: string; summary: RunReport };
    expect(report.tool).toBe('sluice run');
    expect(report.summary.throughput.requestsPerSec).toBe(entry.live[0]);
    expect(run.stdout).toContain('twin against live');
  }, 120_000);
});
