import { join, resolve } from 'node:path';
import { ConfigError, loadConfig, parseCommandLine } from '@sluice/config';
import { executeRun } from '../run/execute-run.js';
import { WorkloadInputError, readWorkloadInput, type WorkloadInput } from '../run/read-workload-input.js';
import { inspectClusterState, staleStateMessage } from './cluster-state.js';
import { fitnessWeightsOf } from './fitness-weights-option.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice run WORKLOAD [--gateway URL] [--out DIR] [--export-trace DIR] [--retries N] [--fitness-weights W] [--json]

Sends a workload (BLIS-style spec: clients, arrival processes, length distributions, prefix
groups) to a running cluster as a real client: each request at its arrival time, whatever became
of the earlier ones (open loop), streaming, with its client's tenant, SLO class and TTFT target
headers.
Measures TTFT, every inter-token gap and E2E on the client side, shows live counts, then prints a
summary and writes report.json and a self-contained report.html.

WORKLOAD is a workload spec (YAML) or a BLIS TraceV2 trace: its header NAME.yaml (NAME.csv beside
it), its NAME.csv (NAME.yaml beside it), or a folder holding exactly one such pair. A trace's
requests go out at its arrival times with its lengths, prefix groups, tenants and SLO classes.

Options:
  --gateway URL    the gateway (default: the cluster \`sluice up\` runs, else gateway.host:port of the config)
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
                   (gateway.auth); the key's tenant and priority then replace the workload's`;

export const runCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], values: ['gateway', 'out', 'retries', 'export-trace', 'fitness-weights'], maxPositionals: 1 }, ctx.cwd);
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
    const status = inspectClusterState(ctx.rootDir);
    if (status.kind === 'stale' && !parsed.values.has('gateway')) {
      err.line(`sluice run: ${staleStateMessage(ctx.rootDir, status.state)}`);
      return EXIT.FAILURE;
    }
    const running = status.kind === 'running' ? status.state : undefined;
    const gateway = (parsed.values.get('gateway') ?? running?.gatewayUrl ?? `http://${config.gateway.host === '0.0.0.0' ? '127.0.0.1' : config.gateway.host}:${config.gateway.port}`).replace(/\/$/, '');
    const exportTrace = parsed.values.get('export-trace');
    const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'runs', new Date().toISOString().replace(/[:.]/g, '-')));

    try {
      const { report } = await executeRun(
        {
          workload,
          gateway,
          model: config.worker.model,
          retries,
          ...(fitnessWeights === undefined ? {} : { fitnessWeights }),
          ...(ctx.env.OPENAI_API_KEY ? { apiKey: ctx.env.OPENAI_API_KEY } : {}),
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
