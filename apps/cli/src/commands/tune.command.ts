import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '@sluice/config';
import { SpaceError, meanMeasure, runStudy, violationOf, type Trial } from '@sluice/tune';
import { WorkloadInputError, readWorkloadInput, type WorkloadInput } from '../run/read-workload-input.js';
import type { Output } from '../terminal/output.js';
import { configProblems } from '../tune/config-checks.js';
import { confirmLive } from '../tune/live-confirm.js';
import { paramArgs, readSpace, type LoadedSpace } from '../tune/read-space.js';
import { TrialPool } from '../tune/trial-pool.js';
import { measureOf, metricProblems } from '../tune/trial-metrics.js';
import { buildTuneFile, type TuneFile } from '../tune/tune-file.js';
import { TuneProgress, formatDuration, formatValue } from '../tune/tune-progress.js';
import { runTwinTrial } from '../tune/twin-trial.js';
import { writeTuneOutputs } from '../tune/write-tune-outputs.js';
import { workloadWithSeed } from '../tune/workload-seeds.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice tune SPACE.yaml [--out DIR] [--trials N] [--seed N] [--parallelism N] [--live] [--json]
                  [--config FILE] [--key.path=value ...]

Searches config settings in the twin for the best value of a run-report metric, under
constraints: a Bayesian search (TPE, as Optuna runs it) where every trial is one \`sluice simulate\`
of the space's workload with the space's base config and the trial's settings. SPACE.yaml names
the base config, the workload, the parameters (config keys by dotted path, each a range or a list
of choices), the objective and constraints (paths into report.json's summary, optionally of one
SLO class or tenant), the budget and the seed (examples/tune/, docs/tune.md).

Trials are proposed in batches (batchSize) and each batch runs on worker threads; the batch size
and the seed, not the thread count, decide the trials, so the same space gives the same results
at any --parallelism. The base config alone runs first: it checks every metric path against a
real report and is the reference the best trials are shown against.

Writes OUT/tune.json (every trial's settings, objective and constraint values, feasibility and
duration; the convergence curve; the Pareto fronts) and OUT/report.html (best trials, convergence
and Pareto plots).

Options:
  --out DIR          where tune.json and report.html go (default .sluice/runs/tune-<time>)
  --trials N         the budget, instead of the space's trials
  --seed N           instead of the space's seed
  --parallelism N    worker threads (default: the space's, else the available cores)
  --live             then run the best \`confirm\` candidates live, each on a local cluster started
                     with its settings, and show twin against live on the objective
  --json             print the result as JSON
  --config FILE, --key.path=value   applied after the space's base config (the parameters still win)
  -h, --help         this text`;

/** A flag's whole number ≥ min, or a problem naming the flag. */
function wholeNumber(name: string, text: string | undefined, problems: string[], min = 1): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(Number.isInteger(n) && n >= min)) problems.push(`--${name}: "${text}" is not a whole number ≥ ${min}`);
  return n;
}

export const tuneCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json', 'live'], values: ['out', 'trials', 'seed', 'parallelism', 'gateway'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    if (file === undefined) problems.push('missing the space: sluice tune SPACE.yaml (examples/tune/)');
    const trialsFlag = wholeNumber('trials', parsed.values.get('trials'), problems);
    const seedFlag = wholeNumber('seed', parsed.values.get('seed'), problems, 0);
    const parallelismFlag = wholeNumber('parallelism', parsed.values.get('parallelism'), problems);
    // A running cluster keeps the settings it started with: the candidates' cannot be put on it.
    if (parsed.values.has('gateway')) problems.push('--gateway: a running cluster cannot take each candidate\'s settings (most are read at start-up); --live starts a local cluster per candidate instead');
    const fail = (lines: readonly string[]) => {
      for (const p of lines) err.line(`sluice tune: ${p}`);
      return EXIT.USAGE;
    };
    if (problems.length > 0) {
      fail(problems);
      err.line('Run `sluice tune --help` for usage.');
      return EXIT.USAGE;
    }

    let space: LoadedSpace;
    let workload: WorkloadInput;
    try {
      space = readSpace(resolve(ctx.cwd, file!));
      workload = readWorkloadInput(space.workloadFile);
    } catch (error) {
      if (error instanceof SpaceError) return fail(error.problems.map((p) => `${file}: ${p}`));
      if (error instanceof WorkloadInputError) return fail([`workload: ${error.message}`]);
      throw error;
    }
    const configArgs = [...space.baseArgs, ...parsed.configArgs];
    const configIssues = configProblems(configArgs, space.params, ctx.env);
    if (configIssues.length > 0) return fail(configIssues);

    const seed = seedFlag ?? space.file.seed;
    const trials = trialsFlag ?? space.file.trials;
    const parallelism = parallelismFlag ?? space.file.parallelism ?? availableParallelism();
    const json = parsed.flags.has('json');

    const { workloadSeeds } = space.file;
    if (workloadSeeds !== undefined && workload.kind !== 'spec') return fail([`${file}: workloadSeeds: ${space.workloadFile} is a trace, whose arrivals are fixed: the seeds would change nothing`]);
    // One run per workload seed (once, as the workload is, without workloadSeeds); a trial is judged on their mean.
    const seedRuns: readonly (number | undefined)[] = workloadSeeds ?? [undefined];
    const workloads = seedRuns.map((s) => (s === undefined ? workload : workloadWithSeed(workload, s)));

    // The base config alone: the reference, and a real report to check every metric path against.
    const baseRuns = workloads.map((w) => runTwinTrial(w, { configArgs, seed }, ctx.env));
    const metricIssues = metricProblems(space, baseRuns[0]!.summary);
    if (metricIssues.length > 0) return fail(metricIssues.map((p) => `${file}: ${p}`));
    const baseMeasure = meanMeasure(baseRuns.map((r) => measureOf(space, r.summary, r.durationMs)));
    const baseline = { ...baseMeasure, feasible: baseMeasure.objectives.every((v) => v !== null) && violationOf(space.constraints, baseMeasure.constraints) === 0 };

    const started = performance.now();
    const progress = json ? undefined : new TuneProgress(space, trials, process.stderr, () => performance.now() - started);
    const pool = new TrialPool(parallelism, { workloadFile: space.workloadFile, env: ctx.env });
    let finished: Trial[];
    try {
      finished = await runStudy(
        { params: space.params, directions: space.objectives.map((o) => o.direction), constraints: space.constraints, trials, batchSize: space.file.batchSize, seed, sampler: space.file.sampler, startupTrials: space.file.startupTrials },
        async (batch) => {
          const results = await Promise.all(
            batch.map((plan) => Promise.all(seedRuns.map((ws) => pool.run({ configArgs: [...configArgs, ...paramArgs(plan.params)], seed, ...(ws === undefined ? {} : { workloadSeed: ws }) })))),
          );
          return results.map((runs) => meanMeasure(runs.map((r) => measureOf(space, r.summary, r.durationMs))));
        },
        (sofar) => progress?.draw(sofar),
      );
    } catch (error) {
      progress?.done();
      err.line(err.red(`sluice tune: a trial failed: ${(error as Error).message}`));
      return EXIT.FAILURE;
    } finally {
      await pool.close();
    }
    progress?.done();
    const wallMs = performance.now() - started;

    let tune: TuneFile = buildTuneFile(space, { seed, parallelism, baseline, trials: finished, wallMs });
    const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'runs', `tune-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    let paths = writeTuneOutputs(outDir, tune);
    if (!json) printBest(out, tune, paths);

    if (parsed.flags.has('live')) {
      const byNumber = new Map(finished.map((t) => [t.number, t]));
      try {
        const live = await confirmLive(ctx, space, workloads, tune.best.map((n) => byNumber.get(n)!), configArgs, outDir);
        tune = { ...tune, live };
        paths = writeTuneOutputs(outDir, tune);
        if (!json) printLive(out, tune);
      } catch (error) {
        err.line(err.red(`sluice tune: --live: ${(error as Error).message}`));
        return EXIT.FAILURE;
      }
    }
    if (json) out.line(JSON.stringify({ tune: paths.json, html: paths.html, best: tune.best.map((n) => tune.trials.find((t) => t.number === n)), baseline: tune.baseline, wallMs: tune.wallMs, live: tune.live ?? null }));
    return EXIT.OK;
  },
};

function printBest(out: Output, tune: TuneFile, paths: { json: string; html: string }): void {
  const byNumber = new Map(tune.trials.map((t) => [t.number, t]));
  const metrics = [...tune.objectives.map((o) => o.metric), ...tune.constraints.map((c) => c.metric)];
  const feasible = tune.trials.filter((t) => t.feasible).length;
  out.line(`${tune.trials.length} trials (${feasible} feasible) in ${formatDuration(tune.wallMs)} on ${tune.parallelism} threads`);
  const row = (name: string, values: readonly (number | null)[], feasibleFlag: boolean) => `  ${name.padEnd(12)} ${values.map((v, i) => `${metrics[i]} ${formatValue(v)}`).join(' · ')}${feasibleFlag ? '' : ' (infeasible)'}`;
  out.line(row('base config', [...tune.baseline.objectives, ...tune.baseline.constraints], tune.baseline.feasible));
  for (const n of tune.best) {
    const t = byNumber.get(n)!;
    out.line(row(`trial #${n}`, [...t.objectives, ...t.constraints], t.feasible));
    // Exact values: the flags, pasted into \`sluice simulate\` or an experiment, give this trial's figures.
    out.line(`               ${Object.entries(t.params).map(([k, v]) => `--${k}=${String(v)}`).join(' ')}`);
  }
  out.line(`tune.json:   ${paths.json}`);
  out.line(`report.html: ${paths.html}`);
}

function printLive(out: Output, tune: TuneFile): void {
  const metric = tune.objectives[0]!.metric;
  out.line(`twin against live, ${metric}:`);
  for (const l of tune.live ?? []) out.line(`  trial #${l.number}: twin ${formatValue(l.twin[0] ?? null)} · live ${formatValue(l.live[0] ?? null)}  (${l.reports.join(', ')})`);
}
