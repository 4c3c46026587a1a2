import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig, loadProfile, parseCommandLine } from '@sluice/config';
import { formatFieldIssue } from '@sluice/contracts';
import { buildReport } from '@sluice/metrics';
import { readReportJson, writeRunReports, type RunReportFile } from '@sluice/report';
import { hopsFromRecords, simulate, type HopLatencies } from '@sluice/twin';
import { WorkloadError, generateWorkloadRequests, parseWorkloadSpec } from '@sluice/workload';
import { printRunSummary } from '../run/print-run-summary.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice simulate WORKLOAD.yaml [--config FILE] [--hop-latency-from report.json] [--seed N] [--out DIR] [--json]

Runs the workload through the discrete-event twin: the same admission, flow-control and routing
policies and the same engine as the live cluster, in one process, in virtual time, configured by
the same sluice.yaml. Writes report.json and report.html like \`sluice run\`, so
\`sluice compare live/report.json twin/report.json\` shows the sim-to-real gap.

Options:
  --hop-latency-from FILE   take the network's cost from a live run's report.json (its stage timings)
  --seed N                  seed of routing tie-breaks (default router.seed, else 0)
  --out DIR                 where the reports go (default .sluice/runs/simulate-<time>)
  --json                    print the summary as JSON
  --config FILE, --key.path=value   the cluster's config (policies, instances, profile)
  -h, --help                this text`;

export const simulateCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], values: ['hop-latency-from', 'seed', 'out'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    if (file === undefined) problems.push('missing the workload file: sluice simulate WORKLOAD.yaml');
    const seedText = parsed.values.get('seed');
    const seed = seedText === undefined ? undefined : Number(seedText);
    if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0)) problems.push(`--seed: "${seedText}" is not a whole number ≥ 0`);
    if (problems.length > 0 || file === undefined) {
      for (const p of problems) err.line(`sluice simulate: ${p}`);
      err.line('Run `sluice simulate --help` for usage.');
      return EXIT.USAGE;
    }

    const workloadFile = resolve(ctx.cwd, file);
    let spec;
    let config;
    let profile;
    let hops: HopLatencies | undefined;
    try {
      spec = parseWorkloadSpec(readFileSync(workloadFile, 'utf8'));
      config = loadConfig({ env: ctx.env, argv: parsed.configArgs });
      profile = loadProfile(config);
      const hopFile = parsed.values.get('hop-latency-from');
      if (hopFile) hops = hopsFromRecords(readReportJson(resolve(ctx.cwd, hopFile)).records);
    } catch (error) {
      if (error instanceof WorkloadError) {
        err.line(`sluice simulate: ${file} is not a valid workload:`);
        for (const issue of error.issues) err.line(`  ${formatFieldIssue(issue)}`);
      } else if (error instanceof ConfigError) {
        for (const p of error.problems) err.line(`sluice simulate: ${p}`);
      } else {
        err.line(`sluice simulate: ${(error as Error).message}`);
      }
      return EXIT.USAGE;
    }

    const requests = generateWorkloadRequests(spec);
    const { records } = simulate(requests, {
      config,
      profile,
      ...(hops ? { hops } : {}),
      ...(seed !== undefined ? { seed } : {}),
    });
    const report: RunReportFile = {
      version: 1,
      tool: 'sluice simulate',
      // Virtual time starts at 0: a fixed stamp keeps the same inputs' report byte-identical.
      startedAt: new Date(0).toISOString(),
      gateway: 'twin (virtual time)',
      workload: { file: workloadFile, spec, requests: requests.length },
      config: { ...config, ...(hops ? { hops } : {}) },
      summary: buildReport(records, { expectedRequests: requests.length }),
      records,
    };
    const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'runs', `simulate-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    printRunSummary(out, report.summary, writeRunReports(outDir, report), parsed.flags.has('json'));
    return report.summary.conservation.check.balanced ? EXIT.OK : EXIT.FAILURE;
  },
};
