import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, type SluiceConfig } from '@sluice/config';
import { canConnect, delay, freePort, urlHostPort } from './net.js';
import { startNats, type NatsKind, type NatsServerHandle, type StartNatsOptions } from './nats-server.js';
import { describeExit, formatTail, isRunning, OutputLog, terminate } from './process.js';
import { trackChild } from './reaper.js';

/** The services in start order: each one's upstream dependencies come first. */
export const SERVICE_NAMES = ['worker', 'router', 'flow-controller', 'admission', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The config section of each service (`flow-controller` → `flowController`). */
export const SERVICE_CONFIG_KEYS = {
  worker: 'worker',
  router: 'router',
  'flow-controller': 'flowController',
  admission: 'admission',
  gateway: 'gateway',
} as const satisfies Record<ServiceName, keyof SluiceConfig>;

export interface ServiceInfo {
  readonly name: ServiceName;
  readonly pid: number;
  /** `http://host:port` of its /healthz, /readyz, /metrics. */
  readonly url: string;
  readonly logFile: string;
}

export interface ServiceExit {
  readonly name: ServiceName;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines of its output. */
  readonly logTail: readonly string[];
  readonly logFile: string;
}

export interface LocalClusterOptions {
  /** The repo root: services are `<rootDir>/apps/<name>/dist/main.js`, logs go under `<rootDir>/.sluice/logs`. */
  readonly rootDir: string;
  /** Config flags, passed to loadConfig here and to every service: `--config FILE`, `--key.path=value`. */
  readonly configArgs?: readonly string[];
  /** Added to process.env for config resolution and for the services (an `undefined` value unsets). */
  readonly env?: NodeJS.ProcessEnv;
  /** Use this NATS server instead of the configured one (`nats.url` / NATS_URL) or an embedded one. */
  readonly natsUrl?: string;
  /** Which services to start, in order (default all of SERVICE_NAMES). */
  readonly services?: readonly ServiceName[];
  /** Where `<service>.log` and `nats.log` are appended (default `<rootDir>/.sluice/logs`). */
  readonly logDir?: string;
  /** Working directory of the services (default process.cwd(), so relative `--config` paths resolve alike). */
  readonly cwd?: string;
  /** Each line a service writes (stdout and stderr). */
  readonly onLine?: (service: ServiceName, line: string) => void;
  /** NATS is up (before any service starts). */
  readonly onNatsReady?: (nats: { readonly url: string; readonly kind: NatsKind; readonly pid?: number }) => void;
  /** A service answered /readyz with 200. */
  readonly onReady?: (service: ServiceInfo) => void;
  /** A service exited after it was ready and before stop() was called. The cluster keeps the others running. */
  readonly onExit?: (exit: ServiceExit) => void;
  /** The script each service runs (default `<rootDir>/apps/<name>/dist/main.js`); tests use stand-ins. */
  readonly serviceEntry?: (name: ServiceName) => string;
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
  readonly nats?: Omit<StartNatsOptions, 'url' | 'logFile'>;
  /** Aborting during start-up stops what was started and rejects with the abort reason. */
  readonly signal?: AbortSignal;
}

export interface LocalCluster {
  readonly natsUrl: string;
  readonly natsKind: NatsKind;
  /** `http://<gateway.host>:<gateway.port>` (a wildcard host is shown as loopback). */
  readonly gatewayUrl: string;
  readonly services: readonly ServiceInfo[];
  /** The resolved config, with the ports actually used (port 0 is replaced by a free port). */
  readonly config: SluiceConfig;
  /** The exact arguments every service got (configArgs plus any chosen ports). */
  readonly serviceArgs: readonly string[];
  readonly logDir: string;
  /** SIGTERM all services, SIGKILL after stopTimeoutMs, then stop NATS. Idempotent. */
  stop(): Promise<void>;
}

/** A service did not come up: it exited, timed out, or its port is taken. */
export class ClusterStartError extends Error {
  override readonly name = 'ClusterStartError';

  constructor(
    message: string,
    readonly service?: ServiceName,
    readonly logTail: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

interface Running {
  readonly name: ServiceName;
  readonly child: ChildProcess;
  readonly log: OutputLog;
  readonly url: string;
  ready: boolean;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('startup aborted', 'AbortError');
}

/**
 * A port this launcher picked for a service (port 0 in the config) was bound by another process
 * between the pick and the service's listen: a race with whatever else runs on the machine (other
 * clusters of a parallel test run, outgoing connections taking ephemeral ports), not a fault of
 * the config, so startLocalCluster tries again with fresh ports.
 */
export class ChosenPortTakenError extends ClusterStartError {
  constructor(cause: ClusterStartError) {
    super(cause.message, cause.service, cause.logTail, { cause });
  }
}

/** How often a start that lost a picked port to another process is tried in all. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Starts NATS (unless one is configured) and the services as child processes of this one, and
 * resolves once every service answers /readyz. On any failure everything started so far is stopped
 * before the promise rejects: ConfigError (bad config, nothing started), NatsUnavailableError,
 * ClusterStartError, or the abort reason. `sluice up` and the integration tests both use this.
 * A start that lost a port it picked itself (port 0) to another process is tried again with new
 * ports, up to PORT_RACE_ATTEMPTS times; a port given in the config is never retried.
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

async function startOnce(options: LocalClusterOptions): Promise<LocalCluster> {
  const rootDir = resolve(options.rootDir);
  const names = options.services ?? SERVICE_NAMES;
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const args = [...(options.configArgs ?? [])];
  const logDir = resolve(options.logDir ?? join(rootDir, '.sluice', 'logs'));
  const entry = options.serviceEntry ?? ((name: ServiceName) => join(rootDir, 'apps', name, 'dist', 'main.js'));
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 8_000;
  const { signal } = options;

  // Bad config fails here, before anything starts (ConfigError).
  const config = loadConfig({ env, argv: args });

  const missing = names.map(entry).filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new ClusterStartError(`not built: ${missing.join(', ')} missing. Run \`npm run build\` (or \`npm start\`, which builds when needed).`);
  }

  // Port 0 means "any free port": pick one now so the services and the caller agree on it.
  const picked = new Set<ServiceName>();
  for (const name of names) {
    const key = SERVICE_CONFIG_KEYS[name];
    const section = config[key];
    if (section.port === 0) {
      picked.add(name);
      section.port = await freePort(section.host);
      args.push(`--${key}.port=${section.port}`);
    }
  }
  // A port someone else already serves would answer /readyz for a service that failed to bind.
  const taken = await Promise.all(
    names.map(async (name) => {
      const { host, port } = config[SERVICE_CONFIG_KEYS[name]];
      return (await canConnect(host, port, 500)) ? `${SERVICE_CONFIG_KEYS[name]}.port ${port} (${name}) on ${host}` : undefined;
    }),
  );
  const busy = taken.filter((t): t is string => t !== undefined);
  if (busy.length > 0) {
    throw new ClusterStartError(
      `port already in use, another process is listening on: ${busy.join('; ')}.\n` +
        'Stop it (an earlier `sluice up`?) or choose other ports, e.g. --gateway.port=8081.',
    );
  }
  if (signal?.aborted) throw abortError(signal);

  const nats: NatsServerHandle = await startNats({
    ...options.nats,
    url: options.natsUrl ?? config.nats.url,
    logFile: join(logDir, 'nats.log'),
    env,
  });
  if (signal?.aborted) {
    await nats.stop();
    throw abortError(signal);
  }
  options.onNatsReady?.({ url: nats.url, kind: nats.kind, ...(nats.pid !== undefined ? { pid: nats.pid } : {}) });

  const running: Running[] = [];
  let stopping: Promise<void> | undefined;
  let stopRequested = false;
  const stop = (): Promise<void> => {
    stopRequested = true;
    stopping ??= (async () => {
      // Downstream first (gateway … worker), all signalled at once; each gets stopTimeoutMs.
      await Promise.all([...running].reverse().map((r) => terminate(r.child, stopTimeoutMs)));
      await Promise.all(running.map((r) => r.log.settled(500)));
      await nats.stop();
      await Promise.all(running.map((r) => r.log.close()));
    })();
    return stopping;
  };

  const childEnv: NodeJS.ProcessEnv = { ...env, NATS_URL: nats.url };
  const spawnService = (name: ServiceName): Running => {
    const { host, port } = config[SERVICE_CONFIG_KEYS[name]];
    const logFile = join(logDir, `${name}.log`);
    const log = new OutputLog(logFile, 20, options.onLine && ((line) => options.onLine?.(name, line)));
    const script = entry(name);
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: false,
    });
    trackChild(child);
    child.on('error', () => undefined); // reported through the exit check below
    log.note(`--- ${new Date().toISOString()} pid ${child.pid ?? '?'}: node ${script} ${args.join(' ')}`);
    log.attach(child.stdout);
    log.attach(child.stderr);
    const service: Running = { name, child, log, url: `http://${urlHostPort(host, port)}`, ready: false };
    child.once('exit', (code, sig) => {
      if (!service.ready || stopRequested) return;
      void log.settled(500).then(() => {
        if (!stopRequested) options.onExit?.({ name, code, signal: sig, logTail: log.tail(), logFile });
      });
    });
    running.push(service);
    return service;
  };

  const deadline = Date.now() + readyTimeoutMs;
  const aborted = new Promise<void>((resolveAbort) => signal?.addEventListener('abort', () => resolveAbort(), { once: true }));
  const waitReady = async (service: Running): Promise<void> => {
    const { child, log, name } = service;
    const exited = new Promise<void>((resolveExit) => {
      if (!isRunning(child)) resolveExit();
      child.once('exit', () => resolveExit());
    });
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      if (!isRunning(child) || child.pid === undefined) {
        await log.settled();
        throw new ClusterStartError(
          `${name} exited before it was ready (${describeExit(child.exitCode, child.signalCode)}); last lines of ${log.path}:\n${formatTail(log.tail())}`,
          name,
          log.tail(),
        );
      }
      try {
        const timeout = AbortSignal.timeout(1_000);
        const res = await fetch(`${service.url}/readyz`, { signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
        await res.body?.cancel();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw new ClusterStartError(
          `${name} was not ready within ${readyTimeoutMs} ms (GET ${service.url}/readyz); last lines of ${log.path}:\n${formatTail(log.tail())}`,
          name,
          log.tail(),
        );
      }
      await Promise.race([delay(50), exited, aborted]);
    }
    service.ready = true;
    options.onReady?.({ name, pid: child.pid ?? -1, url: service.url, logFile: log.path ?? '' });
  };

  try {
    if (options.parallel ?? true) {
      const services = names.map(spawnService);
      await Promise.all(services.map(waitReady));
    } else {
      for (const name of names) await waitReady(spawnService(name));
    }
  } catch (error) {
    await stop();
    if (signal?.aborted) throw abortError(signal);
    const lostPickedPort = error instanceof ClusterStartError && error.service !== undefined && picked.has(error.service) && error.logTail.some((line) => line.includes('EADDRINUSE'));
    throw lostPickedPort ? new ChosenPortTakenError(error) : error;
  }

  const gateway = config.gateway;
  return {
    natsUrl: nats.url,
    natsKind: nats.kind,
    gatewayUrl: `http://${urlHostPort(gateway.host, gateway.port)}`,
    services: running.map((r) => ({ name: r.name, pid: r.child.pid ?? -1, url: r.url, logFile: r.log.path ?? '' })),
    config,
    serviceArgs: args,
    logDir,
    stop,
  };
}

/** For tests: waits until the process has exited (true) or timeoutMs passed (false). */
export async function waitForPidExit(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await delay(20);
  }
}
