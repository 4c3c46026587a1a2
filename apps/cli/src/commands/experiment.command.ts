import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError, parseCommandLine } from '@sluice/config';
import { judge } from '../experiment/claims.js';
import { ExperimentFileError, loadExperiment, type Experiment } from '../experiment/experiment-file.js';
import { claimsTable, recordedDrift, withRecorded, type ExperimentRuns } from '../experiment/experiment-result.js';
import { armFlags, liveArm, twinArm, twinConfigProblems } from '../experiment/run-arms.js';
import { WorkloadInputError, readWorkloadInput, type WorkloadInput } from '../run/read-workload-input.js';
import type { Output } from '../terminal/output.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice experiment EXPERIMENT.yaml [--live] [--record] [--check] [--out DIR] [--json]

Runs an experiment (examples/experiments/<name>/experiment.yaml; docs/experiments.md): the same
workload under each arm's config, first in the twin, then with --live on a local cluster of its
own per arm, one arm after another. Judges each claim of the hypothesis on the arms' reports and
prints the verdict (confirmed, refuted or partly confirmed) with the figures that decided it; with
--live, also the twin's figure beside the live one for each claim.

Options:
  --live        also run every arm live (a local cluster per arm; needs a build and nats-server)
  --record      write the verdicts and figures into the file's \`recorded\` block
  --check       exit 1 if the twin's figures differ from the recorded ones
  --out DIR     where each arm's report goes (default .sluice/experiments/<name>-<time>)
  --json        print the result as JSON
  --key.path=value   config every arm adds last (e.g. --worker.instances=8)
  -h, --help    this text

A refuted hypothesis is a result: the exit code is 0 whatever the verdict, unless a run could not
be made (1) or the file is wrong (2).`;

export const experimentCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'live', 'record', 'check', 'json'], values: ['out'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    if (file === undefined) problems.push('missing the experiment: sluice experiment EXPERIMENT.yaml');
    if (problems.length > 0 || file === undefined) {
      for (const p of problems) err.line(`sluice experiment: ${p}`);
      err.line('Run `sluice experiment --help` for usage.');
      return EXIT.USAGE;
    }
    const path = resolve(ctx.cwd, file);
    let loaded: ReturnType<typeof loadExperiment>;
    let workload: WorkloadInput;
    try {
      loaded = loadExperiment(path);
      workload = readWorkloadInput(loaded.workloadFile);
    } catch (error) {
      if (error instanceof ExperimentFileError) for (const p of error.problems) err.line(`sluice experiment: ${file}: ${p}`);
      else if (error instanceof WorkloadInputError) err.line(`sluice experiment: ${error.message}`);
      else throw error;
      return EXIT.USAGE;
    }
    const { experiment } = loaded;
    const name = basename(dirname(path));
    const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'experiments', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`));

    const runs: ExperimentRuns[] = [];
    try {
      // A key that cannot take effect in the twin is refused before any run: it would measure nothing.
      const problems = twinConfigProblems(experiment, ctx.env);
      if (problems.length > 0) {
        for (const p of problems) err.line(`sluice experiment: ${file}: ${p}`);
        return EXIT.USAGE;
      }
      runs.push(runTwin(experiment, workload, parsed.configArgs, ctx.env, join(outDir, 'twin'), parsed.flags.has('json') ? undefined : err));
      if (parsed.flags.has('live')) runs.push(await runLive(ctx.rootDir, experiment, workload, parsed.configArgs, ctx.env, join(outDir, 'live'), parsed.flags.has('json') ? undefined : err));
    } catch (error) {
      if (error instanceof ConfigError) {
        for (const p of error.problems) err.line(`sluice experiment: ${p}`);
        return EXIT.USAGE;
      }
      err.line(`sluice experiment: ${(error as Error).message}`);
      return EXIT.FAILURE;
    }

    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'experiment.json'), `${JSON.stringify({ name: experiment.name, file: path, hypothesis: experiment.hypothesis, runs }, null, 2)}\n`);
    if (parsed.flags.has('record')) writeFileSync(path, withRecorded(loaded.text, runs));
    const drift = recordedDrift(experiment, runs[0]!);

    if (parsed.flags.has('json')) out.line(JSON.stringify({ name: experiment.name, runs, drift, outDir }));
    else printResult(out, experiment, runs, outDir);
    if (parsed.flags.has('check') && drift.length > 0) {
      for (const d of drift) err.line(err.red(`sluice experiment: twin figures differ from the recorded ones: ${d}`));
      return EXIT.FAILURE;
    }
    return EXIT.OK;
  },
};

function runTwin(experiment: Experiment, workload: WorkloadInput, extra: readonly string[], env: NodeJS.ProcessEnv, outDir: string, log: Output | undefined): ExperimentRuns {
  const summaries = new Map<string, unknown>();
  const reports: Record<string, string> = {};
  for (const arm of experiment.arms) {
    log?.line(log.dim(`twin: ${arm.name}`));
    const dir = join(outDir, arm.name);
    summaries.set(arm.name, twinArm(workload, armFlags(experiment, arm, 'twin', extra), env, dir).summary);
    reports[arm.name] = join(dir, 'report.json');
  }
  return { where: 'twin', ...judge(experiment, summaries), reports };
}

async function runLive(rootDir: string, experiment: Experiment, workload: WorkloadInput, extra: readonly string[], env: NodeJS.ProcessEnv, outDir: string, log: Output | undefined): Promise<ExperimentRuns> {
  const summaries = new Map<string, unknown>();
  const reports: Record<string, string> = {};
  for (const arm of experiment.arms) {
    log?.line(log.dim(`live: ${arm.name} (a cluster of its own, ${workload.requests.length} requests)`));
    const dir = join(outDir, arm.name);
    summaries.set(arm.name, (await liveArm(rootDir, workload, armFlags(experiment, arm, 'live', extra), env, dir)).summary);
    reports[arm.name] = join(dir, 'report.json');
  }
  return { where: 'live', ...judge(experiment, summaries), reports };
}

function printResult(out: Output, experiment: Experiment, runs: readonly ExperimentRuns[], outDir: string): void {
  out.line(out.bold(`${experiment.name}: ${experiment.hypothesis.trim()}`));
  out.line(out.dim(`control: ${experiment.control}; arms: ${experiment.arms.map((a) => a.name).join(', ')}`));
  out.line('');
  for (const r of runs) {
    for (const line of claimsTable(r)) out.line(line);
    out.line('');
  }
  out.line(out.dim(`reports: ${outDir}`));
}
