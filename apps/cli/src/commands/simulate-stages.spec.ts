import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readReportJson } from '@sluice/report';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { simulateCommand } from './simulate.command.js';

/**
 * `sluice simulate` of a workload with load stages (libs/workload, rate-shape/stages.ts): the
 * twin takes its arrivals from the same generator as `sluice run`, so the step shows in what the
 * run served each second. Short requests on the default four instances: each ends well within a
 * second of its arrival, so completions per second follow arrivals per second. Counted from the
 * report's records by the second each ended in, as report.html's "outcomes per second" plot draws
 * them.
 */
const WORKLOAD = `
seed: 5
stages:
  - { rate: 5, duration: 20 }
  - { rate: 30, duration: 20 }
  - { rate: 5, duration: 20 }
clients:
  - { id: chat, tenant_id: acme, slo_class: standard, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 32 } }, output_distribution: { type: constant, params: { value: 4 } } }
`;

describe('sluice simulate of a stages workload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-simulate-stages-'));
  writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);

  it('serves the step: completions per second at each stage’s rate, changing where the stage does', async () => {
    const run = await runInProcess(simulateCommand, ['workload.yaml', '--out', 'out', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const report = readReportJson(join(dir, 'out', 'report.json'));
    expect(report.summary.overall.completed).toBe(report.summary.overall.requests);
    const endedAt = report.records.filter((r) => r.outcome === 'completed').map((r) => Math.floor(r.endMs! / 1000));
    /** Requests completed per second over [from, to) s, and how far that may stray (4σ of a Poisson count). */
    const perSecond = (from: number, to: number) => endedAt.filter((s) => s >= from && s < to).length / (to - from);
    const stray = (rate: number, seconds: number) => (4 * Math.sqrt(rate * seconds)) / seconds;
    // Inside each stage, a second clear of its edges.
    for (const [from, to, rate] of [
      [1, 19, 5],
      [21, 39, 30],
      [41, 59, 5],
    ] as const) {
      expect(Math.abs(perSecond(from, to) - rate), `${perSecond(from, to)}/s over [${from}, ${to}) s, the stage's rate ${rate}/s`).toBeLessThan(stray(rate, to - from));
    }
    // The step is at 20 s: the seconds just before it are at the low rate, those just after at the high one.
    expect(perSecond(16, 20)).toBeLessThan(12);
    expect(perSecond(21, 25)).toBeGreaterThan(20);
    // Nothing arrives after the last stage: the run ends with it.
    expect(Math.max(...report.records.map((r) => r.arrivalMs))).toBeLessThan(60_000);
  });
});
