import { basename, dirname, resolve } from 'node:path';
import { parseCommandLine } from '@sluice/config';
import { compareAutoscaler, compareChaos, compareControlPlane, compareEngine, compareGoodputByGroup, compareLatencyDifferences, compareReports, comparisonTable, readReportJson, type RunReportFile } from '@sluice/report';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice compare A/report.json B/report.json [...] [--json]

Prints the runs' metrics side by side (outcomes, TTFT / ITL / E2E, throughput, Jain's index,
and, for reports that have them, the engines' preemptions, KV allocation failures and cache-hit
rate, and an autoscaled run's instance-hours, goodput per instance-hour and scale-ups), each run
after the first with its change against the first in percent.

Reports of one workload from different endpoints (any of them written by \`sluice run --target\`)
also get each latency percentile's difference from the first in ms and, for the runs whose
answers carried sluice's stage timings, the control plane's cost per stage (p50): e.g. sluice's
gateway against the engine behind it, what the path adds and where.

Options:
  --json       print the comparison as JSON
  -h, --help   this text`;

export const compareCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], maxPositionals: 16 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    if (parsed.positionals.length < 2) problems.push('give at least two report.json files');
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice compare: ${p}`);
      err.line('Run `sluice compare --help` for usage.');
      return EXIT.USAGE;
    }
    const reports: RunReportFile[] = [];
    for (const file of parsed.positionals) {
      try {
        const report = readReportJson(resolve(ctx.cwd, file), { records: false });
        if (report.version !== 1 || report.summary === undefined) throw new Error('not a sluice report.json (version 1)');
        reports.push(report);
      } catch (error) {
        err.line(`sluice compare: ${file}: ${(error as Error).message}`);
        return EXIT.USAGE;
      }
    }
    // Across endpoints the stage timings are in the records: read them only then (they can be large).
    const acrossTargets = reports.some((r) => r.target !== undefined);
    const targetRows = acrossTargets
      ? [...compareLatencyDifferences(reports.map((r) => r.summary)), ...compareControlPlane(parsed.positionals.map((f) => readReportJson(resolve(ctx.cwd, f)).records))]
      : [];
    // Name each run by its directory (reports are usually <dir>/report.json), else its file name.
    const names = parsed.positionals.map((f) => (basename(f) === 'report.json' ? basename(dirname(resolve(ctx.cwd, f))) : basename(f)));
    // Chaos runs (live or in the twin) add their migrations, so a scenario and its twin line up.
    // Reports with an engine section add the cluster's engine counters (twin and live alike).
    // Autoscaled runs add their instance-hours and what they bought, so two ways of scaling line up.
    const rows = [...compareReports(reports.map((r) => r.summary)), ...compareGoodputByGroup(reports.map((r) => r.summary)), ...compareChaos(reports), ...compareEngine(reports), ...compareAutoscaler(reports), ...targetRows];
    if (parsed.flags.has('json')) out.line(JSON.stringify({ runs: names, rows }));
    else out.line(comparisonTable(names, rows));
    return EXIT.OK;
  },
};
