import { warmUp, type WarmUpResult } from './warm-up.js';
import { withCompileCache } from './compile-cache.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, type SluiceConfig } from '@sluice/config';
import { identityOfService, type BusIdentity } from '@sluice/contracts';
import { writeNatsAuth, type NatsAuth } from './nats-auth.js';
import { forget, watchPath } from './watchdog.js';
import { writeNatsCertificates, type NatsCertificates } from './nats-certificates.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from './backoff.js';
import { ChosenPortTakenError, ClusterStartError } from './cluster-errors.js';
import { ClusterNats, type NatsNode, type NatsRestartEvent } from './cluster-nats.js';
import { canConnect, delay, freePorts, urlHostPort } from './net.js';
import type { NatsKind, StartNatsOptions } from './nats-server.js';
import { planProcesses, type PlannedProcess } from './process-plan.js';
import { waitForRoutersToHearWorkers } from './routers-hear-workers.js';
import { isPidAlive } from './process.js';
import { SERVICE_NODE_FLAGS } from './service-node-flags.js';
import { SERVICE_CONFIG_KEYS, servicesOf, type ServiceName } from './services.js';
import { SupervisedProcess, type ClusterProcess, type RestartEvent, type ServiceExit, type ServiceInfo } from './supervisor.js';

export interface LocalClusterOptions {
  /** The repo root: services are `<rootDir>/apps/<name>/dist/main.js`, logs go under `<rootDir>/.sluice/logs`. */
  readonly rootDir: string;
  /** Config flags, passed to loadConfig here and to every service: `--config FILE`, `--key.path=value`. */
  readonly configArgs?: readonly string[];
  /** Added to process.env for config resolution and for the services (an `undefined` value unsets). */
  readonly env?: NodeJS.ProcessEnv;
  /** Use this NATS server instead of the configured one (`nats.url` / NATS_URL) or an embedded one. */
  readonly natsUrl?: string;
  /** Which services to start, in order (default all of SERVICE_NAMES, the autoscaler only when enabled: servicesOf); the worker as `worker.processes` processes. */
  readonly services?: readonly ServiceName[];
  /** Where `<process>.log` (`worker-0.log`, `router.log`, …) and `nats.log` are appended (default `<rootDir>/.sluice/logs`). */
  readonly logDir?: string;
  /** Working directory of the services (default process.cwd(), so relative `--config` paths resolve alike). */
  readonly cwd?: string;
  /** Each line a service writes (stdout and stderr); `process` tells worker processes apart. */
  readonly onLine?: (service: ServiceName, line: string, process: string) => void;
  /** NATS is up (before any service starts), and again each time the supervisor has started it again after an exit. */
  readonly onNatsReady?: (nats: { readonly url: string; readonly kind: NatsKind; readonly pid?: number }) => void;
  /** The nats-server the launcher started exited on its own and will be started again on its URL after `delayMs` (see `restart`). */
  readonly onNatsRestart?: (event: NatsRestartEvent) => void;
  /** The nats-server's restarts kept failing: it stays down (the services wait for it) until stop(). */
  readonly onNatsGaveUp?: (nats: { readonly url: string; readonly startFailures: number; readonly how: string }) => void;
  /** A process answered /readyz with 200: at start-up, and again after each restart. */
  readonly onReady?: (service: ServiceInfo) => void;
  /**
   * A process exited after it was ready, before stop() was called, and stays down: restart is
   * off, or the supervisor gave up on it (`exit.gaveUp`). The cluster keeps the others running.
   */
  readonly onExit?: (exit: ServiceExit) => void;
  /** A process exited after it was ready, before stop() was called, and will be started again after `delayMs`. */
  readonly onRestart?: (event: RestartEvent) => void;
  /**
   * Restart a process that exits after it was ready (default true), on `restartPolicy`'s backoff;
   * false leaves it down and reports it through onExit. The nats-server the launcher started is
   * restarted on the same policy, on its URL (cluster-nats.ts).
   */
  readonly restart?: boolean;
  /** The backoff (default DEFAULT_RESTART_POLICY: 250 ms doubling to 8 s, reset after 30 s up, give up after 5 failed starts). */
  readonly restartPolicy?: Partial<RestartPolicy>;
  /** The script each service runs (default `<rootDir>/apps/<name>/dist/main.js`); tests use stand-ins. */
  readonly serviceEntry?: (name: ServiceName) => string;
  /** Node and V8 flags before each service's script (default SERVICE_NODE_FLAGS); a benchmark tries others, some of which NODE_OPTIONS refuses. */
  readonly nodeArgs?: readonly string[];
  /**
   * Start all services at once (default) or, with false, each after the previous one is ready, in
   * the order of `services`. Parallel is about twice as fast; nothing in a service's readiness
   * depends on another service.
   */
  readonly parallel?: boolean;
  /** Overall time for all services to become ready (default 30 s). */
  readonly readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL (default 8 s). */
  readonly stopTimeoutMs?: number;
  /** How an embedded NATS server is started (binary, Docker fallback, image). */
  readonly nats?: Omit<StartNatsOptions, 'url' | 'logFile' | 'port'>;
  /** Aborting during start-up stops what was started and rejects with the abort reason. */
  readonly signal?: AbortSignal;
  /**
   * Warm-up requests sent through the gateway once every process is ready, before this resolves
   * (default 0: none). `sluice up` and the benchmarks warm up; tests that count requests do not.
   */
  readonly warmUpRequests?: number;
}

export interface LocalCluster {
  readonly natsUrl: string;
  readonly natsKind: NatsKind;
  /**
   * An identity's credentials for the NATS this launcher started with `nats.auth` (the CLI asks as
   * `control`; tests play any kind); undefined when NATS is open or external.
   */
  natsIdentity(identity: BusIdentity): { readonly user: string; readonly password: string; readonly passwordFile: string } | undefined;
  /**
   * The nkey the CLI logs in as `control` with (nats-auth.ts): its seed file (mode 0600) and
   * public key; undefined when NATS is open or external.
   */
  readonly natsControlNkey?: { readonly seedFile: string; readonly publicKey: string };
  /** The CA a client verifies this launcher's NATS against, when it started it with TLS (`nats.generateTls`). */
  readonly natsTls?: { readonly caFile: string };
  /** The monitoring endpoint (`/varz`) of the single nats-server the launcher started with `nats: { monitor: true }`, now. */
  natsMonitorUrl(): string | undefined;
  /** `http://<gateway.host>:<gateway.port>` (a wildcard host is shown as loopback): the first gateway's. */
  readonly gatewayUrl: string;
  /** Every gateway's URL, the first one's first (`gateway.replicas` > 1 starts several). */
  readonly gatewayUrls: readonly string[];
  /** Every process as it first became ready (`name` is the service, `process` tells workers apart); processes() has the current pids. */
  readonly services: readonly ServiceInfo[];
  /** The resolved config, with the ports actually used (port 0 is replaced by a free port; worker-0's in `worker.port`). */
  readonly config: SluiceConfig;
  /** The exact arguments every service got (configArgs plus any chosen ports); worker-i past the first also gets its own `--worker.port`. */
  readonly serviceArgs: readonly string[];
  readonly logDir: string;
  /** The warm-up run before this resolved (absent when `warmUpRequests` was 0 or there is no gateway). */
  readonly warmUp?: WarmUpResult;
  /** Why no warm-up ran although one was asked for (the gateway wants API keys and none was given). */
  readonly warmUpSkipped?: string;
  /** Every process now, in start order (worker-0 … worker-(N-1), router, flow-controller, admission, gateway), with its current pid, state and restart count. */
  processes(): readonly ClusterProcess[];
  /**
   * Sends `signal` to the named process (`router`, `worker-1`; SIGSTOP and SIGCONT included) and
   * returns the pid signalled. Throws an Error naming the known processes for an unknown name, and
   * one saying so for a process that is not running (between a crash and its restart).
   */
  signal(name: string, signal: NodeJS.Signals): number;
  /**
   * Stops the NATS server the launcher started (binary or container), waits downMs and starts it
   * again on the same URL; resolves once it answers. The services reconnect on their own and
   * report not-ready on /readyz meanwhile. Rejects when NATS is external (nats.url, NATS_URL,
   * natsUrl), when a restart is already under way, and when the cluster is stopping.
   */
  restartNats(downMs: number): Promise<void>;
  /** The nodes of the local NATS cluster (`nats.clusterSize` > 1), in order; empty with one server. */
  natsNodes(): readonly NatsNode[];
  /** Stops one node of the local NATS cluster for good: a lost node, whose clients move to the others. */
  stopNatsNode(index: number): Promise<void>;
  /** Starts a node stopped by stopNatsNode again, on its address and with its routes (a lost node back); resolves once it answers. */
  startNatsNode(index: number): Promise<void>;
  /** Cancels pending restarts, SIGTERMs all services, SIGKILLs after stopTimeoutMs, then stops NATS. Idempotent. */
  stop(): Promise<void>;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('startup aborted', 'AbortError');
}

/** How often a start that lost a picked port to another process is tried in all. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Starts NATS (unless one is configured) and the services as child processes of this one, and
 * resolves once every process answers /readyz and every router has heard from the starting worker
 * instances (routers-hear-workers.ts). On any failure everything started so far is stopped
 * before the promise rejects: ConfigError (bad config, nothing started), NatsUnavailableError,
 * ClusterStartError, or the abort reason. `sluice up` and the integration tests both use this.
 * A start that lost a port it picked itself (port 0) to another process is tried again with new
 * ports, up to PORT_RACE_ATTEMPTS times; a port given in the config is never retried.
 * Once up, each process is supervised: one that exits is started again (see `restart`).
 */
export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof ChosenPortTakenError) || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

/** A port someone else already serves would answer /readyz for a process that failed to bind. */
async function refuseBusyPorts(processes: readonly PlannedProcess[]): Promise<void> {
  const taken = await Promise.all(
    processes.map(async ({ name, service, host, port }) =>
      (await canConnect(host, port, 500)) ? `${SERVICE_CONFIG_KEYS[service]}.port ${port} (${name}) on ${host}` : undefined,
    ),
  );
  const busy = taken.filter((t): t is string => t !== undefined);
  if (busy.length > 0) {
    throw new ClusterStartError(
      `port already in use, another process is listening on: ${busy.join('; ')}.\n` +
        'Stop it (an earlier `sluice up`?) or choose other ports, e.g. --gateway.port=8081.',
    );
  }
}

/** Where a service serves HTTP (/readyz, /metrics and, for a gateway, the API). */
function serviceUrl({ host, port }: { readonly host: string; readonly port: number }): string {
  return `http://${urlHostPort(host, port)}`;
}

async function startOnce(options: LocalClusterOptions): Promise<LocalCluster> {
  const rootDir = resolve(options.rootDir);
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const logDir = resolve(options.logDir ?? join(rootDir, '.sluice', 'logs'));
  const entry = options.serviceEntry ?? ((name: ServiceName) => join(rootDir, 'apps', name, 'dist', 'main.js'));
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 8_000;
  const policy: RestartPolicy = { ...DEFAULT_RESTART_POLICY, ...options.restartPolicy };
  const { signal } = options;

  // Bad config fails here, before anything starts (ConfigError).
  const config = loadConfig({ env, argv: options.configArgs ?? [] });
  const names = options.services ?? servicesOf(config);

  const missing = names.map(entry).filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new ClusterStartError(`not built: ${missing.join(', ')} missing. Run \`npm run build\` (or \`npm start\`, which builds when needed).`);
  }

  // Port 0 means "any free port": pick one now so the services and the caller agree on it.
  const plan = await planProcesses(names, config, options.configArgs ?? [], (count, host) => freePorts(count, host));
  await refuseBusyPorts(plan.processes);
  if (signal?.aborted) throw abortError(signal);

  const natsUrl = options.natsUrl ?? config.nats.url;
  // Our own NATS requires credentials unless told otherwise: fresh ones for this run (docs/security.md).
  // A directory of this run's own (several clusters of one checkout run at once in the tests),
  // removed when the cluster stops, and by the watchdog if the launcher is killed (watchdog.ts):
  // the passwords are good for this run only.
  const auth = natsUrl === undefined && config.nats.auth ? writeNatsAuth(watchedDir(mkdtempIn(join(rootDir, '.sluice'), 'nats-'))) : undefined;
  let tls: NatsCertificates | undefined;
  const removeSecrets = (): void => {
    for (const dir of [auth?.dir, tls?.dir]) {
      if (dir === undefined) continue;
      rmSync(dir, { recursive: true, force: true });
      forget(dir);
    }
  };
  try {
    // TLS on our own NATS: this run's certificates, next to its credentials and gone with them.
    if (natsUrl === undefined && config.nats.generateTls) tls = writeNatsCertificates(watchedDir(mkdtempIn(join(rootDir, '.sluice'), 'nats-tls-')));
  } catch (error) {
    removeSecrets();
    throw error;
  }
  const nats = await ClusterNats.start({
    ...options.nats,
    url: natsUrl,
    clusterSize: config.nats.clusterSize,
    logFile: join(logDir, 'nats.log'),
    env,
    ...(auth ? { auth } : {}),
    ...(tls ? { tls: { certFile: tls.certFile, keyFile: tls.keyFile } } : {}),
  }, options.restart === false ? {} : {
    policy,
    ...(options.onNatsRestart ? { onRestart: options.onNatsRestart } : {}),
    ...(options.onNatsReady ? { onReady: options.onNatsReady } : {}),
    ...(options.onNatsGaveUp ? { onGaveUp: options.onNatsGaveUp } : {}),
  }).catch((error: unknown) => {
    removeSecrets();
    throw error;
  });
  if (signal?.aborted) {
    await nats.stop();
    throw abortError(signal);
  }
  options.onNatsReady?.({ url: nats.url, kind: nats.kind, ...(nats.pid !== undefined ? { pid: nats.pid } : {}) });

  const running: SupervisedProcess[] = [];
  /** Aborts a NATS restart's down time when the cluster stops. */
  const stopController = new AbortController();
  let natsRestart: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopController.abort();
      await natsRestart?.catch(() => undefined);
      // Downstream first (gateway … worker), all signalled at once; each gets stopTimeoutMs.
      await Promise.all([...running].reverse().map((p) => p.stop(stopTimeoutMs)));
      await nats.stop();
      await Promise.all(running.map((p) => p.closeLog()));
      removeSecrets();
    })();
    return stopping;
  };

  const childEnv: NodeJS.ProcessEnv = { ...withCompileCache(env), NATS_URL: nats.url };
  const spawnProcess = (planned: PlannedProcess): SupervisedProcess => {
    const { name, service } = planned;
    const supervised = SupervisedProcess.start(
      {
        name,
        service,
        script: entry(service),
        nodeArgs: options.nodeArgs ?? SERVICE_NODE_FLAGS,
        // Each process connects as its kind's identity; flags given after the shared ones win.
        args: [...plan.sharedArgs, ...planned.args, ...(auth ? identityArgs(auth, identityOfService(service)) : []), ...(tls ? [`--nats.tls.caFile=${tls.caFile}`] : [])],
        url: serviceUrl(planned),
        logFile: join(logDir, `${name}.log`),
        cwd: options.cwd ?? process.cwd(),
        env: childEnv,
      },
      {
        restart: options.restart ?? true,
        policy,
        ...(options.onLine ? { onLine: (line: string) => options.onLine?.(service, line, name) } : {}),
        ...(options.onReady ? { onReady: options.onReady } : {}),
        ...(options.onRestart ? { onRestart: options.onRestart } : {}),
        ...(options.onExit ? { onExit: options.onExit } : {}),
      },
    );
    running.push(supervised);
    return supervised;
  };

  const deadline = Date.now() + readyTimeoutMs;
  const waitReady = (p: SupervisedProcess): Promise<void> => p.waitFirstReady(deadline, readyTimeoutMs, signal);
  try {
    if (options.parallel ?? true) {
      const started = plan.processes.map(spawnProcess);
      await Promise.all(started.map(waitReady));
    } else {
      for (const planned of plan.processes) await waitReady(spawnProcess(planned));
    }
    const routers = plan.processes.filter((p) => p.service === 'router').map((p) => ({ name: p.name, url: serviceUrl(p) }));
    const workerProcesses = plan.processes.filter((p) => p.service === 'worker').length;
    await waitForRoutersToHearWorkers(routers, workerProcesses * (config.worker.initialInstances ?? config.worker.instances), deadline, signal);
  } catch (error) {
    await stop();
    if (signal?.aborted) throw abortError(signal);
    const lostPickedPort =
      error instanceof ClusterStartError &&
      plan.processes.some((p) => p.picked && p.name === error.process) &&
      error.logTail.some((line) => line.includes('EADDRINUSE'));
    throw lostPickedPort ? new ChosenPortTakenError(error) : error;
  }

  const gatewayUrl = serviceUrl(config.gateway);
  const gatewayUrls = plan.processes.filter((p) => p.service === 'gateway').map(serviceUrl);
  let warmed: WarmUpResult | undefined;
  // With gateway.auth the warm-up needs a key: OPENAI_API_KEY, as `sluice run` sends it.
  const apiKey = env.OPENAI_API_KEY;
  const warmUpSkipped = config.gateway.auth !== undefined && !apiKey ? 'gateway.auth is on and OPENAI_API_KEY is not set' : undefined;
  if ((options.warmUpRequests ?? 0) > 0 && gatewayUrls.length > 0 && warmUpSkipped === undefined) {
    try {
      // Every gateway runs its own hot path; the stages behind them are warmed by all of it.
      for (const url of gatewayUrls) {
        const run = await warmUp(url, { requests: options.warmUpRequests!, model: config.worker.model, ...(apiKey ? { apiKey } : {}), ...(signal ? { signal } : {}) });
        warmed = warmed === undefined ? run : { ok: warmed.ok + run.ok, failed: warmed.failed + run.failed, ms: warmed.ms + run.ms };
        if (run.failed > 0) break;
      }
    } catch (error) {
      await stop();
      throw signal?.aborted ? abortError(signal) : error;
    }
  }

  const find = (name: string): SupervisedProcess => {
    const found = running.find((p) => p.name === name);
    if (!found) throw new Error(`unknown process "${name}"; this cluster runs: ${running.map((p) => p.name).join(', ')}`);
    return found;
  };
  return {
    natsUrl: nats.url,
    natsIdentity: (identity) => {
      if (!auth) return undefined;
      return { user: identity, password: readFileSync(auth.passwordFileOf(identity), 'utf8').trim(), passwordFile: auth.passwordFileOf(identity) };
    },
    natsKind: nats.kind,
    ...(auth ? { natsControlNkey: auth.controlNkey } : {}),
    ...(tls ? { natsTls: { caFile: tls.caFile } } : {}),
    natsMonitorUrl: () => nats.monitorUrl,
    gatewayUrl,
    gatewayUrls: gatewayUrls.length > 0 ? gatewayUrls : [gatewayUrl],
    ...(warmed ? { warmUp: warmed } : {}),
    ...(warmUpSkipped !== undefined && (options.warmUpRequests ?? 0) > 0 ? { warmUpSkipped } : {}),
    services: running.map((p) => p.serviceInfo()),
    config,
    serviceArgs: plan.sharedArgs,
    logDir,
    processes: () => running.map((p) => p.info()),
    signal: (name, sig) => find(name).signal(sig),
    restartNats: async (downMs) => {
      if (!Number.isFinite(downMs) || downMs < 0) throw new RangeError(`restartNats: downMs must be a finite number ≥ 0, got ${downMs}`);
      if (stopping) throw new Error('restartNats: the cluster is stopping');
      if (natsRestart) throw new Error('restartNats: a NATS restart is already under way');
      natsRestart = nats.restart(downMs, stopController.signal).finally(() => {
        natsRestart = undefined;
      });
      return natsRestart;
    },
    natsNodes: () => nats.nodes,
    stopNatsNode: (index) => nats.stopNode(index),
    startNatsNode: (index) => nats.startNode(index),
    stop,
  };
}

/** `dir`, handed to the watchdog, which removes it if the launcher dies before it does. */
function watchedDir(dir: string): string {
  watchPath(dir);
  return dir;
}

/** A new directory under `parent` (created if missing). */
function mkdtempIn(parent: string, prefix: string): string {
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, prefix));
}

/** `--nats.user` and `--nats.passwordFile` of one identity. */
function identityArgs(auth: NatsAuth, identity: BusIdentity): string[] {
  return [`--nats.user=${identity}`, `--nats.passwordFile=${auth.passwordFileOf(identity)}`];
}

/** For tests: waits until the process has exited (true) or timeoutMs passed (false). */
export async function waitForPidExit(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isPidAlive(pid)) return true;
    if (Date.now() > deadline) return false;
    await delay(20);
  }
}
