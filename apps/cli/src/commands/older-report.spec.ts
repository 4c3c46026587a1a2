import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readReportJson } from '@sluice/report';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import type { Command } from './command.js';
import { compareCommand } from './compare.command.js';
import { simulateCommand } from './simulate.command.js';

/**
 * A report.json as `sluice simulate` wrote it before the fairness id had one name in the code
 * (records' `tenant`, the summary's `byTenant` and `jain.outputTokensByTenant`): the readers of
 * report files take it as they take one written today.
 */
const OLDER = join(import.meta.dirname, 'testing', 'older-report.json');
const WORKLOAD = `
seed: 3
aggregate_rate: 20
num_requests: 6
clients:
  - { id: chat, tenant_id: acme, slo_class: critical, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 64 } }, output_distribution: { type: constant, params: { value: 4 } } }
  - { id: batch, tenant_id: globex, slo_class: sheddable, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 32 } }, output_distribution: { type: constant, params: { value: 3 } } }
`;

const run = (command: Command, cwd: string, ...argv: string[]) => runInProcess(command, argv, { cwd });

describe('an older report.json (tenant, byTenant)', () => {
  it('is that file: written before the rename', () => {
    const text = readFileSync(OLDER, 'utf8');
    expect(text).toContain('"tenant":"acme"');
    expect(text).toContain('"byTenant"');
    expect(text).not.toContain('fairnessId');
  });

  it('simulate --hop-latency-from reads it, and the same workload today compares against it with no change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-older-report-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    const sim = await run(simulateCommand, dir, 'workload.yaml', '--hop-latency-from', OLDER, '--out', 'today', '--json');
    expect(sim.code, sim.stderr).toBe(0);
    const today = readReportJson(join(dir, 'today', 'report.json'));
    expect(today.records.map((r) => r.fairnessId).sort()).toEqual(['acme', 'globex', 'globex', 'globex', 'globex', 'globex']);

    const older = readReportJson(OLDER);
    expect(older.records.map((r) => r.fairnessId)).toEqual(today.records.map((r) => r.fairnessId));
    // Written before goodput: no request had a target, so each completed one was good; TPOT, min and max unknown.
    expect(older.summary.goodput).toMatchObject({ good: older.summary.overall.completed, requestsPerSec: older.summary.throughput.requestsPerSec, targeted: 0, attainment: null });
    expect(older.summary.bySloClass['critical']!.goodput.good).toBe(older.summary.bySloClass['critical']!.completed);
    expect(older.summary.overall.tpot).toMatchObject({ count: 0, p50: null });
    expect(older.summary.overall.ttft.max).toBeNull();
    expect(Object.keys(older.summary.byFairnessId)).toEqual(Object.keys(today.summary.byFairnessId));
    expect(older.summary.jain).toEqual(today.summary.jain);

    const compared = await run(compareCommand, dir, OLDER, join('today', 'report.json'), '--json');
    expect(compared.code, compared.stderr).toBe(0);
    const { rows } = JSON.parse(compared.stdout) as { rows: { metric: string; values: (number | null)[] }[] };
    const jain = rows.find((r) => r.metric === "Jain's index")!;
    expect(jain.values[1]).toBe(jain.values[0]);
  });
});
