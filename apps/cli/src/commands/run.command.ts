import { join, resolve } from 'node:path';
import { ConfigError, loadConfig, parseCommandLine } from '@sluice/config';
import type { FitnessWeights } from '@sluice/metrics';
import { executeRun } from '../run/execute-run.js';
import type { RequestHeaders } from '../run/load-client.js';
import { targetBaseUrl, targetModel } from '../run/target-endpoint.js';
import { WorkloadInputError, readWorkloadInput, type WorkloadInput } from '../run/read-workload-input.js';
import { inspectClusterState, staleStateMessage } from './cluster-state.js';
import { fitnessWeightsOf } from './fitness-weights-option.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice run WORKLOAD [--gateway URL | --target URL [--target-model NAME] [--target-api-key KEY] [--sluice-headers]]
                  [--out DIR] [--export-trace DIR] [--retries N] [--fitness-weights W] [--json]

Sends a workload (BLIS-style spec: clients, arrival processes, length distributions, prefix
groups) to a running cluster as a real client: each request at its arrival time, whatever became
of the earlier ones (open loop), streaming, with its client's tenant, SLO class and TTFT target
headers.
Measures TTFT, every inter-token gap and E2E on the client side from each request's scheduled
send time (a client behind its schedule cannot hide its lag; the report gives the lag too), shows
live counts, then prints a summary and writes report.json and a self-contained report.html.

WORKLOAD is a workload spec (YAML) or a BLIS TraceV2 trace: its header NAME.yaml (NAME.csv beside
it), its NAME.csv (NAME.yaml beside it), or a folder holding exactly one such pair. A trace's
requests go out at its arrival times with its lengths, prefix groups, tenants and SLO classes.

Options:
  --gateway URL    the gateway (default: the cluster \`sluice up\` runs, else gateway.host:port of the config)
  --target URL     drive another OpenAI-compatible endpoint instead (vLLM, llm-d, Dynamo, SGLang…):
                   its base URL, http://host:8000 or http://host:8000/v1; same workload, same report,
                   without what only sluice gives (stage timings, engine counters: the report says so)
  --target-model NAME  the model name sent to the target (default: the one its /v1/models lists,
                   or worker.model of the config when it lists several)
  --target-api-key KEY  sent as \`Authorization: Bearer\` to the target (default: OPENAI_API_KEY)
  --sluice-headers send sluice's request headers to the target too (tenant, SLO class, TTFT target,
                   stage-timings ask, send stamp): for a sluice gateway reached by --target, or an
                   Endpoint Picker that reads x-gateway-inference-fairness-id
  --out DIR        where the reports go (default .sluice/runs/<time>)
  --export-trace DIR   also write the run as a TraceV2 trace (DIR/trace.yaml, DIR/trace.csv) with
                   what became of each request (first/last chunk times, chunks, status)
  --retries N      retry a 503 answer up to N times, with exponential backoff and jitter (default 0)
  --fitness-weights W  score the run: term:weight pairs, e.g. ttft_p99:3,goodput_rps:1 (BLIS's
                   names too: p99_ttft:3,throughput:2); the report's summary.fitness
  --json           print the summary as JSON instead of the progress line and table
  --config FILE, --key.path=value   config (model name, gateway address)
  -h, --help       this text

Environment:
  OPENAI_API_KEY   sent as \`Authorization: Bearer\` with every request, for a gateway with API keys
                   (gateway.auth; the key's tenant and priority then replace the workload's) or a
                   --target that wants one`;

export const runCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json', 'sluice-headers'], values: ['gateway', 'target', 'target-model', 'target-api-key', 'out', 'retries', 'export-trace', 'fitness-weights'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    if (file === undefined) problems.push('missing the workload: sluice run WORKLOAD.yaml (a spec or a TraceV2 trace)');
    const retries = Number(parsed.values.get('retries') ?? '0');
    if (!Number.isInteger(retries) || retries < 0) problems.push(`--retries: "${parsed.values.get('retries')}" is not a whole number ≥ 0`);
    const fitnessWeights = fitnessWeightsOf(parsed.values.get('fitness-weights'), problems);
    const target = targetOption(parsed.values, parsed.flags, problems);
    if (problems.length > 0 || file === undefined) {
      for (const p of problems) err.line(`sluice run: ${p}`);
      err.line('Run `sluice run --help` for usage.');
      return EXIT.USAGE;
    }

    let workload: WorkloadInput;
    try {
      workload = readWorkloadInput(resolve(ctx.cwd, file));
    } catch (error) {
      if (!(error instanceof WorkloadInputError)) throw error;
      err.line(`sluice run: ${error.message}`);
      return EXIT.USAGE;
    }

    let config;
    try {
      config = loadConfig({ env: ctx.env, argv: parsed.configArgs });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const p of error.problems) err.line(`sluice run: ${p}`);
      return EXIT.USAGE;
    }
    const apiKey = parsed.values.get('target-api-key') ?? (ctx.env.OPENAI_API_KEY || undefined);
    if (target !== undefined) return runAgainstTarget(ctx, { workload, target, apiKey, configModel: config.worker.model, retries, fitnessWeights, outDir: outDirOf(ctx, parsed.values.get('out')), exportTrace: parsed.values.get('export-trace'), json: parsed.flags.has('json') });
    const status = inspectClusterState(ctx.rootDir);
    if (status.kind === 'stale' && !parsed.values.has('gateway')) {
      err.line(`sluice run: ${staleStateMessage(ctx.rootDir, status.state)}`);
      return EXIT.FAILURE;
    }
    const running = status.kind === 'running' ? status.state : undefined;
    const gateway = (parsed.values.get('gateway') ?? running?.gatewayUrl ?? `http://${config.gateway.host === '0.0.0.0' ? '127.0.0.1' : config.gateway.host}:${config.gateway.port}`).replace(/\/$/, '');
    const exportTrace = parsed.values.get('export-trace');
    const outDir = outDirOf(ctx, parsed.values.get('out'));

    try {
      const { report } = await executeRun(
        {
          workload,
          gateway,
          model: config.worker.model,
          retries,
          ...(fitnessWeights === undefined ? {} : { fitnessWeights }),
          ...(apiKey === undefined ? {} : { apiKey }),
          outDir,
          config: running?.config ?? config,
          json: parsed.flags.has('json'),
          // A `sluice up` on free ports: its workers are where cluster.json says, not at worker.port.
          ...(running?.processes ? { workerUrls: running.processes.filter((p) => p.service === 'worker').map((p) => p.url) } : {}),
          ...(exportTrace === undefined ? {} : { exportTraceDir: resolve(ctx.cwd, exportTrace) }),
        },
        out,
        process.stderr,
      );
      if (report.summary.overall.requests > 0 && report.records.every((r) => r.status === 0)) {
        err.line(err.red(`sluice run: no request reached ${gateway}: is the cluster up (\`sluice up\`), or is --gateway right?`));
        return EXIT.FAILURE;
      }
      return report.summary.conservation.check.balanced ? EXIT.OK : EXIT.FAILURE;
    } catch (error) {
      err.line(`sluice run: ${(error as Error).message}`);
      return EXIT.FAILURE;
    }
  },
};

function outDirOf(ctx: CliContext, given: string | undefined): string {
  return resolve(ctx.cwd, given ?? join(ctx.rootDir, '.sluice', 'runs', new Date().toISOString().replace(/[:.]/g, '-')));
}

interface TargetOption {
  readonly url: string;
  readonly model?: string;
  readonly requestHeaders: RequestHeaders;
}

/** `--target` and the flags that go with it; the flags are refused without it, where they could not take effect. */
function targetOption(values: ReadonlyMap<string, string>, flags: ReadonlySet<string>, problems: string[]): TargetOption | undefined {
  const given = values.get('target');
  if (given === undefined) {
    for (const name of ['target-model', 'target-api-key']) if (values.has(name)) problems.push(`--${name} goes with --target (sluice's own gateway takes its model from the config and its key from OPENAI_API_KEY)`);
    if (flags.has('sluice-headers')) problems.push('--sluice-headers goes with --target: sluice\'s own gateway always gets them');
    return undefined;
  }
  if (values.has('gateway')) problems.push('--gateway and --target: give one (--target drives any OpenAI-compatible endpoint, --gateway a sluice gateway)');
  const base = targetBaseUrl(given);
  if ('problem' in base) {
    problems.push(`--target: ${base.problem}`);
    return undefined;
  }
  const model = values.get('target-model');
  if (model === '') problems.push('--target-model: empty');
  return { url: base.url, ...(model ? { model } : {}), requestHeaders: flags.has('sluice-headers') ? 'sluice' : 'openai' };
}

interface TargetRun {
  readonly workload: WorkloadInput;
  readonly target: TargetOption;
  readonly apiKey: string | undefined;
  readonly configModel: string;
  readonly retries: number;
  readonly fitnessWeights: FitnessWeights | undefined;
  readonly outDir: string;
  readonly exportTrace: string | undefined;
  readonly json: boolean;
}

/**
 * `sluice run --target`: the same run against an endpoint that is not sluice's own gateway. No
 * cluster is looked for or started; the report carries no sluice config (the target's is not
 * known) and says what the endpoint could not give.
 */
async function runAgainstTarget(ctx: CliContext, run: TargetRun): Promise<number> {
  const { stdout: out, stderr: err } = ctx;
  const model = await targetModel(run.target.url, run.target.model, run.configModel, run.apiKey);
  if ('problem' in model) {
    err.line(`sluice run: ${model.problem}`);
    return EXIT.USAGE;
  }
  try {
    const { report } = await executeRun(
      {
        workload: run.workload,
        gateway: run.target.url,
        target: { requestHeaders: run.target.requestHeaders },
        model: model.model,
        retries: run.retries,
        ...(run.fitnessWeights === undefined ? {} : { fitnessWeights: run.fitnessWeights }),
        ...(run.apiKey === undefined ? {} : { apiKey: run.apiKey }),
        outDir: run.outDir,
        config: null,
        json: run.json,
        ...(run.exportTrace === undefined ? {} : { exportTraceDir: resolve(ctx.cwd, run.exportTrace) }),
      },
      out,
      process.stderr,
    );
    if (report.summary.overall.requests > 0 && report.records.every((r) => r.status === 0)) {
      err.line(err.red(`sluice run: no request reached ${run.target.url}: is the endpoint up, and is --target right?`));
      return EXIT.FAILURE;
    }
    return report.summary.conservation.check.balanced ? EXIT.OK : EXIT.FAILURE;
  } catch (error) {
    err.line(`sluice run: ${(error as Error).message}`);
    return EXIT.FAILURE;
  }
}
