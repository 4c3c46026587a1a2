import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitness } from '@sluice/metrics';
import { readReportJson } from '@sluice/report';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { simulateCommand } from './simulate.command.js';

/** `sluice simulate` of a workload whose clients carry SLO targets, scored with --fitness-weights. */
const WORKLOAD = `
seed: 3
aggregate_rate: 20
num_requests: 12
slo_targets:
  critical: { ttft_ms: 5000, e2e_ms: 60000 }
clients:
  - { id: chat, tenant_id: acme, slo_class: critical, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 64 } }, output_distribution: { type: constant, params: { value: 4 } }, slo: { tpot_ms: 0.001 } }
  - { id: batch, tenant_id: globex, slo_class: sheddable, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 32 } }, output_distribution: { type: constant, params: { value: 3 } } }
`;

const simulate = (dir: string, ...argv: string[]) => runInProcess(simulateCommand, argv, { cwd: dir });

describe('sluice simulate with SLO targets and --fitness-weights', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-simulate-slo-'));
  writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);

  it('keeps each request’s targets in its record, judges them, and scores the fitness it was asked for', async () => {
    const run = await simulate(dir, 'workload.yaml', '--out', 'out', '--json', '--fitness-weights', 'slo_attainment:2,p99_ttft:1');
    expect(run.code, run.stderr).toBe(0);
    const report = readReportJson(join(dir, 'out', 'report.json'));
    const chat = report.records.filter((r) => r.sloClass === 'critical');
    expect(chat.length).toBeGreaterThan(0);
    expect(chat.every((r) => r.slo?.ttftMs === 5000 && r.slo.e2eMs === 60000 && r.slo.tpotMs === 0.001)).toBe(true);
    expect(report.records.filter((r) => r.sloClass === 'sheddable').every((r) => r.slo === undefined)).toBe(true);
    // A 1 µs TPOT target no request with two tokens meets: every critical request misses it.
    const { goodput } = report.summary;
    expect(goodput.targeted).toBe(chat.length);
    expect(goodput.tpot).toEqual({ targeted: chat.length, met: 0, attainment: 0 });
    expect(goodput.attainment).toBe(0);
    expect(goodput.ttft.attainment).toBe(1);
    expect(report.summary.bySloClass['sheddable']!.goodput.attainment).toBeNull();
    expect(report.summary.fitness).toBe(fitness(report.summary.overall, { slo_attainment: 2, ttft_p99: 1 }));
    expect(report.summary.fitness).toBeGreaterThan(0);
  });

  it('refuses weights it cannot read, naming the option', async () => {
    const run = await simulate(dir, 'workload.yaml', '--out', 'bad', '--fitness-weights', 'ttft_p42:1');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--fitness-weights: unknown fitness term 'ttft_p42'/);
  });
});
