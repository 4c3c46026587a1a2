import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readReportJson, type RunReportFile } from '@sluice/report';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { simulateCommand } from './simulate.command.js';

/**
 * docs/autoscaling-examples.md's figures and claims, kept true in the twin: every row of its
 * table runs the `sluice simulate` command it names, as a reader would (the same command, in this
 * process, writing report.json), each figure is checked to the digits written, and each claim the
 * page makes is checked with a margin, so an example whose effect fades fails here.
 */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PAGE = 'docs/autoscaling-examples.md';
const text = readFileSync(join(ROOT, PAGE), 'utf8');

/** The table's columns after the command, in order, and how each is read off report.json. */
const COLUMNS: readonly [string, (r: RunReportFile) => number][] = [
  ['completed', (r) => r.summary.conservation.books.completed],
  ['rejected', (r) => r.summary.conservation.books.rejected.total],
  ['dropped', (r) => r.summary.conservation.books.dropped.total],
  ['TTFT p50 (ms)', (r) => r.summary.overall.ttft.p50 ?? Number.NaN],
  ['TTFT p99 (ms)', (r) => r.summary.overall.ttft.p99 ?? Number.NaN],
  ['scale-ups', (r) => r.autoscaler!.scaleUps.length],
  ['instance-hours', (r) => r.autoscaler!.instanceHours],
  ['good / instance-hour', (r) => r.autoscaler!.goodPerInstanceHour ?? Number.NaN],
];

/** Words of a command line: whitespace separates (the page's commands quote nothing). */
const shellWords = (line: string): string[] => line.trim().split(/\s+/);

interface Row {
  readonly command: string;
  readonly cells: readonly string[];
}

/** The table rows whose first cell is a `sluice simulate …` command. */
function rows(): Row[] {
  const found: Row[] = [];
  for (const line of text.split('\n')) {
    const m = /^\|\s*`(sluice simulate [^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m) found.push({ command: m[1]!, cells: m[2]!.split('|').map((c) => c.trim()) });
  }
  return found;
}

const reports = new Map<string, Promise<RunReportFile>>();

/** The report of one command of the page, run once. */
function reportOf(command: string): Promise<RunReportFile> {
  const known = reports.get(command);
  if (known) return known;
  const run = (async () => {
    const out = mkdtempSync(join(tmpdir(), 'sluice-autoscale-example-'));
    const [, , ...argv] = shellWords(command);
    const result = await runInProcess(simulateCommand, [...argv, '--out', out], { cwd: ROOT });
    if (result.code !== 0) throw new Error(`${command}: exit ${result.code}: ${result.stderr}`);
    return readReportJson(join(out, 'report.json'));
  })();
  reports.set(command, run);
  return run;
}

/** The page's command that runs `load` with `config` and the flags given, which must be a row of its table. */
function commandWith(load: string, config: string, ...flags: string[]): string {
  const command = [`sluice simulate examples/workloads/${load} --config examples/config/${config}`, ...flags].join(' ');
  expect(rows().map((r) => r.command), `a row of ${PAGE}`).toContain(command);
  return command;
}

const STEP = 'step-load.yaml';
const DIURNAL = 'diurnal.yaml';
const QUEUE = 'autoscale-queue-depth.yaml';
const KV = 'autoscale-kv-utilization.yaml';
const BUSY = 'autoscale-busy-threshold.yaml';
const BELOW = '--admission.policies.busy-threshold.activeDecodeBlocksThreshold=0.5';

describe(`${PAGE}: the figures`, () => {
  it('has a table of runs with a figure in every column', () => {
    expect(rows().length).toBeGreaterThanOrEqual(5);
    for (const row of rows()) expect(row.cells, row.command).toHaveLength(COLUMNS.length);
  });

  it.each(rows().map((r) => [r.command, r] as const))('%s', async (_command, row) => {
    const report = await reportOf(row.command);
    COLUMNS.forEach(([name, read], i) => {
      const written = row.cells[i]!.replace(/,/g, '');
      const decimals = written.split('.')[1]?.length ?? 0;
      expect(read(report).toFixed(decimals), `${name} of ${row.command}`).toBe(written);
    });
  }, 120_000);
});

describe(`${PAGE}: the claims`, () => {
  it('scaling on queue depth serves more good requests per instance-hour than scaling on KV utilization: by half again on the step, by a tenth on the diurnal day', async () => {
    for (const [load, margin] of [
      [STEP, 1.5],
      [DIURNAL, 1.1],
    ] as const) {
      const queue = (await reportOf(commandWith(load, QUEUE))).autoscaler!;
      const kv = (await reportOf(commandWith(load, KV))).autoscaler!;
      expect(queue.goodPerInstanceHour!, load).toBeGreaterThan(margin * kv.goodPerInstanceHour!);
    }
  }, 120_000);

  it('in-flight requests, which do not read 0 while the pool is busy, beat queue depth on the diurnal day and not on the step', async () => {
    const inFlight = ['--autoscaler.metric=inFlight', '--autoscaler.target=16'];
    const diurnal = (await reportOf(commandWith(DIURNAL, QUEUE, ...inFlight))).autoscaler!;
    expect(diurnal.goodPerInstanceHour!).toBeGreaterThan(1.2 * (await reportOf(commandWith(DIURNAL, QUEUE))).autoscaler!.goodPerInstanceHour!);
    const step = (await reportOf(commandWith(STEP, QUEUE, ...inFlight))).autoscaler!;
    expect(step.goodPerInstanceHour!).toBeLessThan((await reportOf(commandWith(STEP, QUEUE))).autoscaler!.goodPerInstanceHour!);
  }, 120_000);

  it('on KV utilization each decision adds at most one instance, and on queue depth the first one sizes the pool for the step', async () => {
    const kv = (await reportOf(commandWith(STEP, KV))).autoscaler!;
    for (const up of kv.scaleUps) expect(up.added).toBe(1);
    const queue = (await reportOf(commandWith(STEP, QUEUE))).autoscaler!;
    expect(queue.scaleUps[0]!.added).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('each scale-up is routable the control hop plus the modelled start-up (20 s) after its decision', async () => {
    for (const row of rows()) {
      for (const up of (await reportOf(row.command)).autoscaler!.scaleUps) expect(up.reactionMs, row.command).toBeCloseTo(20_000.5, 6);
    }
  }, 120_000);

  it('load step → routable on queue depth is the wait for the next decision plus the start-up: the step at 40 s, the decision at 45 s, routable at 65 s; KV utilization misses that decision', async () => {
    const stepAtMs = 40_000; // examples/workloads/step-load.yaml: 4 a second for 40 s, then 20
    const nextDecisionMs = (Math.floor(stepAtMs / 15_000) + 1) * 15_000;
    const [queue] = (await reportOf(commandWith(STEP, QUEUE))).autoscaler!.scaleUps;
    expect(queue!.decidedAtMs).toBe(nextDecisionMs);
    expect(queue!.routableAtMs! - stepAtMs).toBeCloseTo(nextDecisionMs - stepAtMs + 20_000.5, 6);
    const [kv] = (await reportOf(commandWith(STEP, KV))).autoscaler!.scaleUps;
    expect(kv!.decidedAtMs).toBeGreaterThan(nextDecisionMs);
  }, 120_000);

  it('busy threshold above the target (Dynamo: HPA at 70 %, rejection at 85 %): the pool grows and admission refuses nothing', async () => {
    const above = await reportOf(commandWith(STEP, BUSY));
    expect(above.autoscaler!.scaleUps.length).toBeGreaterThan(0);
    expect(above.summary.conservation.books.rejected.total).toBe(0);
  }, 120_000);

  it('busy threshold below the target: admission refuses the demand, the autoscaler never sees it, and the pool never grows', async () => {
    const below = await reportOf(commandWith(STEP, BUSY, BELOW));
    const above = await reportOf(commandWith(STEP, BUSY));
    expect(below.summary.conservation.books.rejected.total).toBeGreaterThan(below.workload.requests / 4);
    expect(below.autoscaler!.scaleUps).toHaveLength(0);
    // What it decided on stayed below the target all run (within the HPA's tolerance), so no decision could grow it.
    for (const d of below.autoscaler!.decisions) expect(d.value).toBeLessThanOrEqual(0.7 * 1.1);
    expect(below.summary.conservation.books.completed).toBeLessThan(above.summary.conservation.books.completed);
  }, 120_000);
});
