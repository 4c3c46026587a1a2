import { basename, join, resolve } from 'node:path';
import { ConfigError, loadConfig, natsCredentialsOf, parseCommandLine, type NatsCredentials, type SluiceConfig } from '@sluice/config';
import { ClusterStartError, NatsUnavailableError } from '@sluice/launcher';
import { createFaultRegistry, whyUnsupported } from '@sluice/workload';
import type { ChaosTarget } from '../chaos/chaos-target.js';
import { ComposeTarget } from '../chaos/compose-target.js';
import { startLocalTarget } from '../chaos/local-target.js';
import { SHORT_SCALE, loadScenario, ScenarioLoadError, type LoadedScenario } from '../chaos/load-scenario.js';
import { runChaos } from '../chaos/run-chaos.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice chaos SCENARIO.yaml [--short | --scale F] [--out DIR] [--json]
                    [--compose [--compose-project NAME] [--gateway URL]] [--config FILE] [--key.path=value ...]

Runs a chaos scenario (examples/chaos/): starts a cluster of its own with the scenario's
\`cluster\` flags, sends its workload as a real client, fires its faults at their offsets from the
first request (undone after \`forMs\`), then checks the invariants (every request ends exactly
once, the gateway's and the stages' books agree, streamed tokens = usage, no request outlives its
deadline, failed share ≤ expect.maxFailedShare) and measures migrations, time to detect and
time to recover. Writes report.json and report.html with a chaos section. Exit code 1 if an
invariant fails.

Faults (docs/chaos.md): ${createFaultRegistry().actions().join(', ')}.

Options:
  --short             the time axis × 0.2: a 25 s scenario in about 5 s (CI)
  --scale F           the time axis × F: request count, horizon and fault times
  --out DIR           where the reports go (default .sluice/runs/chaos-<name>-<time>)
  --json              print the summary and the chaos section as JSON
  --compose           break a running \`docker compose up\` instead (docker kill/pause/network
                      disconnect/stop of its containers; stop-nats-node needs the project up
                      with docker-compose.nats-cluster.yml); the scenario's cluster flags are not
                      applied: give the project's own settings (e.g. --gateway.requestTimeoutMs)
  --compose-project N the Compose project (default COMPOSE_PROJECT_NAME, else this directory's name)
  --gateway URL       the gateway under --compose (default gateway.host:port of the config)
  --config FILE, --key.path=value   config for the local cluster, after the scenario's flags
  -h, --help          this text`;


export const chaosCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json', 'short', 'compose'], values: ['scale', 'out', 'gateway', 'compose-project'], maxPositionals: 1 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    const file = parsed.positionals[0];
    if (file === undefined) problems.push('missing the scenario file: sluice chaos SCENARIO.yaml');
    const scale = parsed.flags.has('short') ? SHORT_SCALE : Number(parsed.values.get('scale') ?? '1');
    if (parsed.flags.has('short') && parsed.values.has('scale')) problems.push('--short and --scale contradict each other');
    if (!(Number.isFinite(scale) && scale > 0)) problems.push(`--scale: "${parsed.values.get('scale')}" is not a number > 0`);
    const compose = parsed.flags.has('compose');
    if (!compose && (parsed.values.has('compose-project') || parsed.values.has('gateway'))) problems.push('--compose-project and --gateway go with --compose (a local run starts its own cluster)');
    if (problems.length > 0 || file === undefined) return usageError(ctx, problems);

    let loaded: LoadedScenario;
    try {
      loaded = loadScenario(resolve(ctx.cwd, file), scale);
    } catch (error) {
      if (!(error instanceof ScenarioLoadError)) throw error;
      err.line(`sluice chaos: ${file} is not a valid scenario:`);
      for (const p of error.problems) err.line(`  ${p}`);
      return EXIT.USAGE;
    }
    // A compose project runs as it was started: the scenario's flags would describe another cluster
    // (its deadline, its model), so there only the command line's config counts.
    const configArgs = compose ? [...parsed.configArgs] : [...clusterArgs(loaded.scenario.cluster), ...parsed.configArgs];
    let config: SluiceConfig;
    try {
      config = loadConfig({ env: ctx.env, argv: configArgs });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const p of error.problems) err.line(`sluice chaos: ${p}`);
      return EXIT.USAGE;
    }

    let target: ChaosTarget;
    try {
      target = compose ? composeTarget(ctx, parsed.values, config) : await startLocalTarget({ rootDir: ctx.rootDir, configArgs, onRestart: (r) => err.line(err.yellow(`  ↻ ${r.name} restarted (after ${r.delayMs} ms)`)) });
    } catch (error) {
      if (error instanceof ConfigError || error instanceof NatsUnavailableError || error instanceof ClusterStartError) {
        err.line(err.red(`sluice chaos: ${error.message}`));
        return error instanceof ConfigError ? EXIT.USAGE : EXIT.FAILURE;
      }
      throw error;
    }
    const registry = createFaultRegistry();
    const stop = (): void => {
      err.line('stopping…');
      void target.close().finally(() => process.exit(EXIT.FAILURE));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const unsupported = (await Promise.all(loaded.faults.map(async (f, i) => [i, f.action, await whyUnsupported(registry.of(f), f, target)] as const))).filter(([, , why]) => why !== undefined);
      if (unsupported.length > 0) {
        for (const [i, action, why] of unsupported) err.line(`sluice chaos: faults[${i}] (${action}): ${why}`);
        return EXIT.USAGE;
      }
      if (compose && Object.keys(loaded.scenario.cluster).length > 0) {
        err.line(err.yellow(`sluice chaos: under --compose the scenario's cluster flags (${Object.keys(loaded.scenario.cluster).join(', ')}) are not applied: the project runs as it was started`));
      }
      const outDir = resolve(ctx.cwd, parsed.values.get('out') ?? join(ctx.rootDir, '.sluice', 'runs', `chaos-${loaded.scenario.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`));
      const { chaos } = await runChaos(
        { loaded, model: config.worker.model, requestTimeoutMs: config.gateway.requestTimeoutMs, outDir, json: parsed.flags.has('json'), registry },
        target,
        out,
        process.stderr,
      );
      return chaos.passed ? EXIT.OK : EXIT.FAILURE;
    } catch (error) {
      err.line(err.red(`sluice chaos: ${(error as Error).message}`));
      return EXIT.FAILURE;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await target.close();
    }
  },
};

function usageError({ stderr: err }: CliContext, problems: readonly string[]): number {
  for (const p of problems) err.line(`sluice chaos: ${p}`);
  err.line('Run `sluice chaos --help` for usage.');
  return EXIT.USAGE;
}

/** The scenario's `cluster` map as the config flags every service takes: `worker.processes: 2` → `--worker.processes=2`. */
export function clusterArgs(cluster: Readonly<Record<string, string | number | boolean>>): string[] {
  return Object.entries(cluster).map(([key, value]) => `--${key}=${String(value)}`);
}

function composeTarget(ctx: CliContext, values: ReadonlyMap<string, string>, config: SluiceConfig): ChaosTarget {
  const host = config.gateway.host === '0.0.0.0' ? '127.0.0.1' : config.gateway.host;
  // Compose's own default project name: the directory of the compose file, lowercased, [a-z0-9_-] only.
  const project = values.get('compose-project') ?? ctx.env.COMPOSE_PROJECT_NAME ?? basename(ctx.rootDir).toLowerCase().replace(/[^a-z0-9_-]/g, '');
  return new ComposeTarget({
    project,
    gatewayUrl: (values.get('gateway') ?? `http://${host}:${config.gateway.port}`).replace(/\/$/, ''),
    natsUrl: config.nats.url ?? 'nats://127.0.0.1:4222',
    ...optionalCredentials(natsCredentialsOf(config.nats)),
  });
}

function optionalCredentials(credentials: NatsCredentials | undefined): { natsCredentials?: NatsCredentials } {
  return credentials ? { natsCredentials: credentials } : {};
}
