import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig, loadProfile, parseCommandLine } from '@sluice/config';
import { DecisionTraceFile, RECORDS_FILE, writeRunReports, type RunReportFile } from '@sluice/report';
import { decisionTraceObserver, type TwinChaosReport } from '@sluice/twin';
import type { ChaosScenario, Fault } from '@sluice/workload';
import { SHORT_SCALE, ScenarioLoadError, loadScenario } from '../chaos/load-scenario.js';
import type { Output } from '../terminal/output.js';
import { writeObservedTrace } from '../run/export-trace.js';
import { HOP_SAMPLINGS, readHopSource, saveHopProfile, type HopSampling, type HopSource } from '../run/hop-source.js';
import { printRunSummary } from '../run/print-run-summary.js';
import { configuredHopSource, twinReport, type TwinRunOptions } from '../run/twin-report.js';
import { DEFAULT_STREAM_ABOVE, plannedRequests, twinStreamedReport } from '../run/twin-streamed-report.js';
import { WorkloadInputError, readWorkloadInput, workloadInputFromSpec, type WorkloadInput } from '../run/read-workload-input.js';
import { EXIT, type CliContext, type Command } from './command.js';
import { fitnessWeightsOf } from './fitness-weights-option.js';

const USAGE = `Usage: sluice simulate WORKLOAD [--config FILE] [--hop-latency-from FILE [--hop-sampling S] [--save-hop-profile FILE]] [--seed N] [--out DIR] [--stream] [--export-trace DIR] [--decision-trace FILE] [--fitness-weights W] [--json]
       sluice simulate --chaos SCENARIO.yaml [--short | --scale F] [the same options]

Runs the workload through the discrete-event twin: the same admission, flow-control and routing
policies and the same engine as the live cluster, in one process, in virtual time, configured by
the same sluice.yaml. Writes report.json and report.html like \`sluice run\`, so
\`sluice compare live/report.json twin/report.json\` shows the sim-to-real gap. WORKLOAD is a
workload spec or a BLIS TraceV2 trace (NAME.yaml with NAME.csv beside it, either of them, or a
folder holding one such pair), as \`sluice run\` takes it.

With --chaos, runs a chaos scenario (the file \`sluice chaos\` takes) in virtual time: its workload
(inline, or a file relative to the scenario), its cluster flags as config (before the command
line's), and its faults at their offsets from the first request. Faults the twin cannot model
(a stage process killed, NATS restarted, a network partition, …) are listed as not modelled and
the rest runs. report.json gets a \`twinChaos\` section: each fault with its virtual time and what
the twin made of it, and the migrations by reason (docs/twin.md, "Faults in the twin").

Options:
  --chaos FILE              run a chaos scenario instead of a workload
  --short, --scale F        with --chaos: the scenario's time axis × 0.2 (or × F), as \`sluice chaos\` scales it
  --hop-latency-from FILE   take the network's cost from a live run's report.json (its stage timings)
                            or a hop profile: each request takes one live request's whole path
  --hop-sampling S          empirical (default): each request draws a live path with the seed;
                            paired: each takes its own live counterpart's path (the same workload's run);
                            median: every request takes each hop's median
  --save-hop-profile FILE   keep the live paths read by --hop-latency-from as a hop profile (twin.hopProfile)
  --seed N                  seed of routing tie-breaks and bus-fault draws (default router.seed, else 0)
  --out DIR                 where the reports go (default .sluice/runs/simulate-<time>)
  --stream                  stream the run (as a workload of more than twin.streamAbove requests, default
                            200000, is): records go to DIR/records.ndjson as they settle, report.json names
                            that file, the summaries are counted as they pass (docs/twin.md, "Streamed runs");
                            not with --chaos or --export-trace, which read every record
  --export-trace DIR        also write the run as a TraceV2 trace (DIR/trace.yaml, DIR/trace.csv) with
                            what became of each request, in virtual time
  --decision-trace FILE     write each routing decision as a JSON line (virtual time, request, attempt,
                            choice, regret, top router.counterfactualK candidates), as the live router
                            does with router.decisionTrace; \`sluice compare-decisions\` compares two
                            (default: router.decisionTrace of the config, if set)
  --fitness-weights W       score the run: term:weight pairs, e.g. ttft_p99:3,goodput_rps:1 (as sluice run)
  --json                    print the summary as JSON
  --config FILE, --key.path=value   the cluster's config (policies, instances, profile)
  --epp-config FILE, --inference-objectives FILE   the Endpoint Picker's config, as for sluice up
  -h, --help                this text`;

/** report.json of a chaos scenario run in the twin: the usual report plus what the faults did. */
type TwinChaosReportFile = RunReportFile & {
  readonly twinChaos: TwinChaosReport & { readonly scenario: { readonly name: string; readonly description: string; readonly file: string } };
};

/** What a run reads before it starts: the workload, and the scenario when there is one. */
interface Inputs {
  readonly workload: WorkloadInput;
  readonly scenario?: { readonly file: string; readonly scenario: ChaosScenario; readonly faults: readonly Fault[] };
}

export const simulateCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json', 'short', 'stream'], values: ['hop-latency-from', 'hop-sampling', 'save-hop-profile', 'seed', 'out', 'chaos', 'scale', 'export-trace', 'fitness-weights', 'decision-trace'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    const chaosFile = parsed.values.get('chaos');
    if (file === undefined && chaosFile === undefined) problems.push('missing the workload: sluice simulate WORKLOAD.yaml (a spec or a TraceV2 trace; or --chaos SCENARIO.yaml)');
    if (file !== undefined && chaosFile !== undefined) problems.push('give a workload file or --chaos SCENARIO.yaml, not both (a scenario names its workload)');
    const seedText = parsed.values.get('seed');
    const seed = seedText === undefined ? undefined : Number(seedText);
    if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0)) problems.push(`--seed: "${seedText}" is not a whole number ≥ 0`);
    const scale = scaleOf(parsed.flags.has('short'), parsed.values.get('scale'), problems);
    const fitnessWeights = fitnessWeightsOf(parsed.values.get('fitness-weights'), problems);
    const sampling = (parsed.values.get('hop-sampling') ?? 'empirical') as HopSampling;
    if (!HOP_SAMPLINGS.includes(sampling)) problems.push(`--hop-sampling: "${sampling}" is not one of ${HOP_SAMPLINGS.join(', ')}`);
    if (!parsed.values.has('hop-latency-from') && (parsed.values.has('hop-sampling') || parsed.values.has('save-hop-profile'))) problems.push('--hop-sampling and --save-hop-profile go with --hop-latency-from (they say how to take its paths)');
    if (chaosFile === undefined && scale !== 1) problems.push('--short and --scale go with --chaos (they scale a scenario\'s time axis)');
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice simulate: ${p}`);
      err.line('Run `sluice simulate --help` for usage.');
      return EXIT.USAGE;
    }

    let inputs: Inputs;
    let config;
    let profile;
    let hopSource: HopSource | undefined;
    try {
      inputs = chaosFile === undefined ? { workload: readWorkloadInput(resolve(ctx.cwd, file!)) } : readScenario(resolve(ctx.cwd, chaosFile), scale);
      // The scenario's cluster flags first: the command line's win.
      const scenarioArgs = Object.entries(inputs.scenario?.scenario.cluster ?? {}).map(([key, value]) => `--${key}=${String(value)}`);
      config = loadConfig({ env: ctx.env, argv: [...scenarioArgs, ...parsed.configArgs] });
      profile = loadProfile(config);
      const hopFile = parsed.values.get('hop-latency-from');
      // The command line's live path wins over the config's hop profile.
      hopSource = hopFile ? readHopSource(resolve(ctx.cwd, hopFile), sampling) : configuredHopSource(config);
      const saveTo = parsed.values.get('save-hop-profile');
      if (saveTo !== undefined) {
        const paths = hopFile === undefined ? undefined : hopSource?.paths;
        if (paths === undefined) throw new Error(`--save-hop-profile: ${hopFile} has no per-hop timings to keep (a report from an older gateway)`);
        saveHopProfile(resolve(ctx.cwd, saveTo), hopFile!, paths);
      }
    } catch (error) {
      if (error instanceof WorkloadInputError) {
        err.line(`sluice simulate: ${error.message}`);
      } else if (error instanceof ScenarioLoadError) {
        for (const p of error.problems) err.line(`sluice simulate: ${p}`);
      } else if (error instanceof ConfigError) {
        for (const p of error.problems) err.line(`sluice simulate: ${p}`);
      } else {
        err.line(`sluice simulate: ${(error as Error).message}`);
      }
      return EXIT.USAGE;
    }

    const { workload, scenario } = inputs;
    // Stage replicas are modelled (docs/twin.md, "Stage replicas"); gateways are not: each owns only its own requests.
    if (config.gateway.replicas > 1) err.line(err.yellow(`sluice simulate: gateway.replicas ${config.gateway.replicas} is not modelled: the twin runs one gateway (docs/twin.md, "Stage replicas")`));
    const exportTrace = parsed.values.get('export-trace');
    const streaming = streamingOf(parsed.flags.has('stream'), workload, config.twin.streamAbove);
    const refusal = streaming && (scenario ? 'a chaos run reads every record for its report' : exportTrace !== undefined ? '--export-trace writes what became of each request from every record' : undefined);
    if (streaming && refusal) {
      err.line(`sluice simulate: ${streaming}, and ${refusal}: it cannot be streamed${parsed.flags.has('stream') ? ' (leave out --stream)' : ' (raise twin.streamAbove to run it kept)'}`);
      return EXIT.USAGE;
    }
    const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'runs', `simulate-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    const traceFile = parsed.values.get('decision-trace') ?? config.router.decisionTrace;
    const trace = traceFile === undefined ? undefined : new DecisionTraceFile(resolve(ctx.cwd, traceFile));
    const runOptions: TwinRunOptions = {
      config,
      profile,
      ...(hopSource ? { hopSource } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(scenario ? { faults: scenario.faults } : {}),
      ...(fitnessWeights === undefined ? {} : { fitnessWeights }),
      ...(trace && { observer: decisionTraceObserver(config.router.counterfactualK, (line) => trace.write(line)) }),
    };
    if (streaming) {
      mkdirSync(outDir, { recursive: true });
      const { report, page } = twinStreamedReport(workload, runOptions, outDir);
      trace?.close();
      const paths = writeRunReports(outDir, report, page);
      printRunSummary(out, report.summary, paths, parsed.flags.has('json'), report.autoscaler);
      if (!parsed.flags.has('json')) out.line(`records: ${join(outDir, RECORDS_FILE)} (streamed: ${streaming})`);
      return report.summary.conservation.check.balanced ? EXIT.OK : EXIT.FAILURE;
    }
    const { result, report: base } = twinReport(workload, runOptions);
    trace?.close();
    let report: RunReportFile = base;
    if (scenario && result.chaos) {
      const { name, description } = scenario.scenario;
      const withChaos: TwinChaosReportFile = { ...base, twinChaos: { scenario: { name, description, file: scenario.file }, ...result.chaos } };
      report = withChaos;
      for (const warning of result.chaos.notModelled) err.line(err.yellow(`sluice simulate: ${warning}`));
      if (config.worker.timeScale !== 1) {
        // The examples' scenarios run live at timeScale 2; the twin's model runs at its own speed.
        err.line(err.yellow(`sluice simulate: worker.timeScale ${config.worker.timeScale} is not modelled: the twin's instances run at the model's own speed (to compare, run the live scenario with --worker.timeScale=1)`));
      }
      if (!parsed.flags.has('json')) printChaos(out, result.chaos);
    }
    const paths = writeRunReports(outDir, report);
    // No created_at: like the report, the same inputs give the same trace, byte for byte.
    if (exportTrace !== undefined) writeObservedTrace(resolve(ctx.cwd, exportTrace), workload, result.records);
    printRunSummary(out, report.summary, paths, parsed.flags.has('json'), report.autoscaler);
    return report.summary.conservation.check.balanced ? EXIT.OK : EXIT.FAILURE;
  },
};

/**
 * Why the run is streamed, or undefined when it is kept: --stream, or a workload of more requests
 * than twin.streamAbove (default DEFAULT_STREAM_ABOVE).
 */
function streamingOf(flag: boolean, workload: WorkloadInput, streamAbove: number | undefined): string | undefined {
  if (flag) return '--stream';
  const planned = plannedRequests(workload);
  const above = streamAbove ?? DEFAULT_STREAM_ABOVE;
  return planned > above ? `the workload offers ${planned} requests, above twin.streamAbove (${above})` : undefined;
}

/** A scenario and its workload, read and scaled exactly as `sluice chaos` reads them (one loader). */
function readScenario(file: string, scale: number): Inputs {
  const loaded = loadScenario(file, scale);
  return { workload: workloadInputFromSpec(loaded.workloadFile, loaded.spec), scenario: { file, scenario: loaded.scenario, faults: loaded.faults } };
}

/** `--short` is × 0.2; `--scale F` any factor > 0; at most one of them. */
function scaleOf(short: boolean, text: string | undefined, problems: string[]): number {
  if (short && text !== undefined) problems.push('give --short or --scale, not both');
  if (text === undefined) return short ? SHORT_SCALE : 1;
  const factor = Number(text);
  if (!(factor > 0) || !Number.isFinite(factor)) problems.push(`--scale: "${text}" is not a number > 0`);
  return factor > 0 ? factor : 1;
}

/** Each fault with its virtual time and what the twin made of it, then the migrations. */
function printChaos(out: Output, chaos: TwinChaosReport): void {
  out.line(`faults (virtual time; the first request at ${chaos.t0Ms} ms):`);
  for (const f of chaos.faults) {
    const at = f.firedAtMs === null ? (f.modelled ? 'not reached' : 'skipped') : `${f.firedAtMs} ms${f.undoneAtMs === null ? '' : ` → ${f.undoneAtMs} ms`}`;
    out.line(`  [${f.index}] ${f.action} ${f.target}: ${at}: ${f.detail}`);
  }
  const reasons = Object.entries(chaos.migrations.byReason).map(([reason, n]) => `${reason} ${n}`);
  out.line(`migrations: ${chaos.migrations.total}${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`);
  out.line('');
}
