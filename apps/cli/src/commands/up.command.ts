import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ConfigError, parseCommandLine, readEndpointPickerLayer } from '@sluice/config';
import {
  ClusterStartError,
  NatsUnavailableError,
  SERVICE_NAMES,
  startLocalCluster,
  type LocalCluster,
  type NatsKind,
  type RestartEvent,
  type ServiceExit,
  type ServiceInfo,
  type ServiceName,
} from '@sluice/launcher';
import { parseWorkloadSpec } from '@sluice/workload';
import { executeRun } from '../run/execute-run.js';
import { removeClusterState, removeStaleClusterState, writeClusterState } from './cluster-state.js';
import { EXIT, type CliContext, type Command } from './command.js';

/**
 * Enough for every process's hot path to be through V8's first tiers (docs/benchmarks.md, "Live
 * path"); the top tier comes after ~10 500 requests ("The JIT tier-up stall").
 */
const DEFAULT_WARM_UP_REQUESTS = 200;

const USAGE = `Usage: sluice up [--config FILE] [--no-demo | --demo-workload FILE] [--warmup N] [--only SERVICES] [--nats-cluster N] [--key.path=value ...]

Starts the whole cluster on this machine: a NATS server (NATS_URL or nats.url if set, else a
local nats-server, else a Docker container) and the worker, router, flow-controller, admission
and gateway services as child processes. Ctrl-C stops everything.

The worker runs as worker.processes processes (worker-0, worker-1, …; worker-i on worker.port + i,
or free ports with --worker.port=0), each hosting worker.instances instances. Admission, flow
controller, router and gateway run as <section>.replicas processes (--router.replicas=2: router-0
on router.port, router-1 on a free port; docs/scaling.md says what holds). A process that exits
is restarted after 250 ms, doubling to 8 s while it keeps crashing; one that fails to start 5 times
in a row is left down. The nats-server sluice started is restarted the same way, on the same port.
Pids are in .sluice/cluster.json.

Options:
  --config FILE       a sluice.yaml (also SLUICE_CONFIG)
  --epp-config FILE   an EndpointPickerConfig (the Gateway API Inference Extension's) read into the
                      router, flow control and saturation detector; what sluice cannot honour stops
                      start-up, named by its YAML path (docs/endpoint-picker-config.md)
  --inference-objectives FILE  InferencePool / InferenceObjective objects: the pool, its port, the priorities
  --no-demo           do not run the demo workload (examples/workloads/quickstart.yaml, about a minute)
  --demo-workload F   run this workload as the demo instead
  --warmup N          warm-up requests sent through the gateway before sluice reports it is up
                      (default ${DEFAULT_WARM_UP_REQUESTS}; 0: none). They are real requests of tenant sluice-warmup,
                      counted in the metrics like any other; they spare the first user requests
                      the start-up costs (JIT, first-use compilation, connections)
  --only SERVICES     start only these services (comma-separated: ${SERVICE_NAMES.join(', ')}), e.g.
                      on a second machine whose workers join a cluster elsewhere:
                      sluice up --only worker --nats.url=nats://first-machine:4222
                      (without nats.url a local NATS starts, which the other machines can join)
  --nats-cluster N    start N nats-servers routed into one cluster instead of one server, and give
                      every service all their URLs (nats.clusterSize; needs the nats-server binary)
  --key.path=value    override one config key, e.g. --gateway.port=8081 --worker.processes=2
  -h, --help          this text

Service logs are appended to .sluice/logs/<process>.log in the repo (router.log, worker-0.log, …).`;

/** How long after a signal `up` waits for the services before it gives up on them. */
const STOP_DEADLINE_MS = 9_500;
/** A Ctrl-C in the terminal reaches the services too; their exit is not a crash if our signal follows. */
const EXIT_REPORT_DELAY_MS = 250;

const NATS_ORIGIN: Record<NatsKind, string> = {
  external: 'external (NATS_URL / nats.url)',
  process: 'nats-server',
  docker: 'docker container',
};

function row(name: string, detail: string, url: string): string {
  return `${name.padEnd(16)}${detail.padEnd(11)}${url}`;
}

export const upCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const { flags, values, files, configArgs, problems } = parseCommandLine(argv, { flags: ['no-demo', 'help'], values: ['demo-workload', 'warmup', 'only', 'nats-cluster'] }, ctx.cwd);
    if (flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice up: ${p}`);
      err.line('Run `sluice up --help` for usage.');
      return EXIT.USAGE;
    }
    const warmUpRequests = Number(values.get('warmup') ?? DEFAULT_WARM_UP_REQUESTS);
    if (!Number.isInteger(warmUpRequests) || warmUpRequests < 0) {
      err.line(`sluice up: --warmup must be a whole number ≥ 0 (warm-up requests), got "${values.get('warmup')}"`);
      return EXIT.USAGE;
    }
    const only = parseOnly(values.get('only'));
    if (typeof only === 'string') {
      err.line(`sluice up: ${only}`);
      return EXIT.USAGE;
    }
    const natsCluster = values.get('nats-cluster');
    // An alias of the config key, so a bad value fails as the key's does (naming it and its range).
    const clusterConfigArgs = natsCluster === undefined ? configArgs : [...configArgs, `--nats.clusterSize=${natsCluster}`];
    const withGateway = only === undefined || only.includes('gateway');
    const demo = flags.has('no-demo') || !withGateway ? undefined : resolve(ctx.cwd, values.get('demo-workload') ?? join(ctx.rootDir, 'examples', 'workloads', 'quickstart.yaml'));

    // What the Endpoint Picker's files became, so a GAIE user sees their config in sluice's terms
    // (a file that does not translate fails below, in the launcher's loadConfig, naming each refusal).
    if (files.size > 0) {
      try {
        for (const line of readEndpointPickerLayer(Object.fromEntries(files)).mapped) out.line(out.dim(`endpoint picker: ${line}`));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
      }
    }

    // A `sluice up` of this checkout that was killed left its state (and maybe secrets): replaced.
    const stale = removeStaleClusterState(ctx.rootDir);
    if (stale) out.line(out.yellow(`removed the stale state of a \`sluice up\` (pid ${stale.pid}) that is no longer running`));

    const controller = new AbortController();
    let cluster: LocalCluster | undefined;
    let stopping = false;
    let finish: (code: number) => void = () => undefined;
    const finished = new Promise<number>((resolve) => {
      finish = resolve;
    });

    const stopCluster = (code: number): void => {
      const deadline = setTimeout(() => {
        err.line(err.red(`sluice: services still running ${STOP_DEADLINE_MS / 1000} s after the stop signal; killing them`));
        // The launcher SIGKILLs whatever it started when this process exits, and its watchdog
        // removes the run's secrets; process.exit skips the `finally` below, so the state goes here.
        removeClusterState(ctx.rootDir);
        process.exit(EXIT.FAILURE);
      }, STOP_DEADLINE_MS);
      deadline.unref();
      void (cluster?.stop() ?? Promise.resolve()).then(
        () => finish(code),
        (error: unknown) => {
          err.line(`sluice: error while stopping: ${(error as Error).message}`);
          finish(EXIT.FAILURE);
        },
      );
    };

    const onSignal = (): void => {
      // Ctrl-C can arrive several times at once (from the terminal, npm and tools/start.mjs): one stop.
      if (stopping) return;
      stopping = true;
      out.line('stopping…');
      if (cluster) stopCluster(EXIT.OK);
      else controller.abort(new Error('stopped by signal during start-up'));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const onExit = (exit: ServiceExit): void => {
      setTimeout(() => {
        if (stopping) return;
        const what = exit.gaveUp
          ? `failed to start ${exit.gaveUp.startFailures} times in a row (last: ${howItExited(exit)}); not restarted again`
          : `exited (${howItExited(exit)})`;
        err.line(err.red(`  ✗ ${exit.process} ${what}; the other services keep running. Last lines of ${exit.logFile}:`));
        for (const line of exit.logTail) err.line(`      ${line}`);
      }, EXIT_REPORT_DELAY_MS).unref();
    };

    const onRestart = (event: RestartEvent): void => {
      setTimeout(() => {
        if (stopping) return;
        err.line(err.yellow(`  ↻ ${restartLine(event)}`));
      }, EXIT_REPORT_DELAY_MS).unref();
    };

    // Another terminal (a chaos run) finds the processes here; a restart changes a pid.
    const saveState = (up: LocalCluster): void => {
      const processes = up.processes().map(({ name, service, pid, url, restarts }) => ({ name, service, pid, url, restarts }));
      writeClusterState(ctx.rootDir, {
        pid: process.pid,
        natsUrl: up.natsUrl,
        ...(up.natsControlNkey ? { natsControl: { nkeySeedFile: up.natsControlNkey.seedFile } } : {}),
        ...(up.natsTls ? { natsTlsCaFile: up.natsTls.caFile } : {}),
        gatewayUrl: up.gatewayUrl,
        config: up.config,
        processes,
      });
    };
    const onReady = (s: ServiceInfo): void => {
      out.line(`  ${out.green('✓')} ${row(s.process, `pid ${s.pid}`, s.url)}`);
      // Once up, a process is ready again after a restart: its new pid goes to the state file.
      if (cluster && !stopping) saveState(cluster);
    };

    try {
      try {
        cluster = await startLocalCluster({
          rootDir: ctx.rootDir,
          configArgs: clusterConfigArgs,
          signal: controller.signal,
          onNatsReady: (nats) =>
            out.line(`  ${out.green('✓')} ${row('nats', nats.pid === undefined ? '' : `pid ${nats.pid}`, `${nats.url}  ${out.dim(`(${NATS_ORIGIN[nats.kind]})`)}`)}`),
          // NATS is supervised like the services: its exit and return are printed as theirs are.
          onNatsRestart: (event) => {
            if (!stopping) err.line(err.yellow(`  ↻ nats exited (${event.how}); restarting in ${event.delayMs} ms on ${event.url} (attempt ${event.attempt})`));
          },
          onNatsGaveUp: (nats) => {
            if (!stopping) err.line(err.red(`  ✗ nats failed to start ${nats.startFailures} times in a row on ${nats.url} (last: ${nats.how}); not restarted again, the services wait for it`));
          },
          onReady,
          onRestart,
          onExit,
          warmUpRequests,
          ...(only ? { services: only } : {}),
        });
      } catch (error) {
        if (stopping) return EXIT.OK; // Ctrl-C during start-up: the launcher has stopped what it started.
        return reportStartError(error, ctx);
      }

      if (stopping) {
        // The signal came as the last service became ready: stop what is now fully started.
        stopCluster(EXIT.OK);
        return await finished;
      }

      saveState(cluster);
      const model = cluster.config.worker.model;
      out.line('');
      if (!withGateway) {
        // Part of a cluster: no gateway here, so no URL to try and no demo.
        out.line(out.bold(`sluice is up: ${only.join(', ')} on NATS ${cluster.natsUrl} (Ctrl-C to stop)`));
        out.line(`  logs: ${relative(ctx.cwd, cluster.logDir) || '.'}/<process>.log`);
        return await finished;
      }
      const others = cluster.gatewayUrls.slice(1);
      out.line(out.bold(`sluice is up: gateway ${cluster.gatewayUrl}${others.length > 0 ? ` (and ${others.join(', ')})` : ''} (Ctrl-C to stop)`));
      out.line(
        `  try: curl -N ${cluster.gatewayUrl}/v1/chat/completions -H 'content-type: application/json' ` +
          `-d '{"model":"${model}","stream":true,"max_tokens":32,"messages":[{"role":"user","content":"Hello!"}]}'`,
      );
      const workers = cluster.processes().filter((p) => p.service === 'worker');
      const { instances } = cluster.config.worker;
      out.line(`  workers: ${workers.map((p) => p.name).join(', ')} (${workers.length} × ${instances} instance${instances === 1 ? '' : 's'}); a process that exits is restarted`);
      const { autoscaler } = cluster.config;
      if (cluster.processes().some((p) => p.service === 'autoscaler')) {
        const per = autoscaler.metric === 'kvUtilization' ? '' : ' per instance';
        const initial = cluster.config.worker.initialInstances ?? instances;
        out.line(`  autoscaler: ${autoscaler.metric} (target ${autoscaler.target}${per}), ${workers.length * initial} instance${workers.length * initial === 1 ? '' : 's'} at start, ${autoscaler.minInstances}…${autoscaler.maxInstances ?? workers.length * instances}, deciding every ${autoscaler.intervalMs} ms (docs/autoscaling.md)`);
      }
      const { http, host } = cluster.config.worker;
      if (http.enabled) {
        // Each instance's own vLLM-compatible port: the bare GPU, without admission, flow control or routing.
        const last = http.basePort + instances - 1;
        out.line(
          http.basePort === 0
            ? `  worker HTTP (vLLM's API, each instance on an ephemeral port): each "serves vLLM's HTTP API on" line of the worker logs`
            : `  worker HTTP (vLLM's API, instance by rank): http://${host}:${http.basePort}${instances > 1 ? ` … :${last}` : ''}`,
        );
      }
      out.line(`  logs: ${relative(ctx.cwd, cluster.logDir) || '.'}/<process>.log`);
      const control = cluster.natsIdentity('control');
      if (control) out.line(`  bus credentials (this run only): ${relative(ctx.cwd, dirname(control.passwordFile))}/<identity>.password; other sluice commands of this checkout log in as control with its nkey (control.nk)`);
      if (cluster.warmUpSkipped) out.line(out.yellow(`  no warm-up: ${cluster.warmUpSkipped} (the first requests pay the start-up costs)`));
      if (cluster.warmUp) {
        const { ok, failed, ms } = cluster.warmUp;
        const line = `  warmed up: ${ok} requests in ${(ms / 1000).toFixed(1)} s (tenant sluice-warmup)${failed > 0 ? `, ${failed} failed` : ''}`;
        out.line(failed > 0 ? out.yellow(line) : out.dim(line));
      }
      if (demo) await runDemo(cluster, demo, ctx, () => stopping);
      return await finished;
    } finally {
      removeClusterState(ctx.rootDir);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/** `--only worker,router` → the services in start order, or what is wrong with it. */
function parseOnly(value: string | undefined): ServiceName[] | string | undefined {
  if (value === undefined) return undefined;
  const named = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = named.filter((name) => !(SERVICE_NAMES as readonly string[]).includes(name));
  if (named.length === 0 || unknown.length > 0) {
    return `--only: ${named.length === 0 ? 'no service named' : `"${unknown.join('", "')}" is not a service`}; allowed: ${SERVICE_NAMES.join(', ')} (comma-separated)`;
  }
  return SERVICE_NAMES.filter((name) => named.includes(name));
}

function howItExited(exit: ServiceExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? '?'}`;
}

/** "router exited (signal SIGKILL); restarting in 250 ms (attempt 1)". */
function restartLine(event: RestartEvent): string {
  return `${event.name} exited (${howItExited(event.exit)}); restarting in ${event.delayMs} ms (attempt ${event.attempt})`;
}

/** The quickstart workload through the fresh cluster; the cluster keeps running afterwards. */
async function runDemo(cluster: LocalCluster, workloadFile: string, ctx: CliContext, stopped: () => boolean): Promise<void> {
  const { stdout: out, stderr: err } = ctx;
  out.line('');
  out.line(out.bold(`demo: ${relative(ctx.cwd, workloadFile)} (\`--no-demo\` skips it)`));
  try {
    const spec = parseWorkloadSpec(readFileSync(workloadFile, 'utf8'));
    await executeRun(
      {
        workloadFile,
        spec,
        gateway: cluster.gatewayUrl,
        model: cluster.config.worker.model,
        retries: 0,
        outDir: join(ctx.rootDir, '.sluice', 'runs', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`),
        config: cluster.config,
        json: false,
      },
      out,
      process.stdout,
    );
  } catch (error) {
    if (!stopped()) err.line(err.red(`demo failed: ${(error as Error).message}`));
    return;
  }
  if (stopped()) return;
  out.line('');
  out.line(out.bold(`the cluster keeps running at ${cluster.gatewayUrl}: curl it, run \`npx sluice run <workload>\`, or Ctrl-C to stop`));
}

function reportStartError(error: unknown, ctx: CliContext): number {
  const { stderr: err } = ctx;
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'ConfigError')) {
    err.line(error.message);
    return ConfigError.EXIT_CODE;
  }
  if (error instanceof NatsUnavailableError || error instanceof ClusterStartError) {
    // Both messages say what to do (install NATS, free a port, read the service's log lines).
    err.line(err.red(`sluice up: ${error.message}`));
    return EXIT.FAILURE;
  }
  err.line(`sluice up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT.FAILURE;
}
