import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { docker, dockerCliAvailable } from './docker.js';
import type { NatsAuth } from './nats-auth.js';
import { canConnect, delay, freePorts, isLoopbackHost, natsAnswers, urlHostPort } from './net.js';
import { describeExit, formatTail, isRunning, OutputLog, terminate } from './process.js';
import { trackChild, trackContainer, untrackContainer } from './reaper.js';

export const DEFAULT_NATS_IMAGE = 'nats:2.10-alpine';

/** Where a NATS server came from: given by URL, a nats-server child process, or a Docker container. */
export type NatsKind = 'external' | 'process' | 'docker';

export interface StartNatsOptions {
  /** An existing server (NATS_URL / `nats.url`): nothing is started, it must accept TCP connections. */
  readonly url?: string;
  /** Path of the nats-server binary; `false` skips the local binary. Default: searched on PATH, /usr/sbin, /usr/local/bin. */
  readonly binary?: string | false;
  /** Fall back to a Docker container when there is no binary (default true). */
  readonly docker?: boolean;
  /** Image for the Docker fallback (default SLUICE_NATS_IMAGE or nats:2.10-alpine). */
  readonly image?: string;
  /** Address the local nats-server binds (default 127.0.0.1). */
  readonly host?: string;
  /** Client port (default a free one): set to start a server again on the URL of one that was stopped. */
  readonly port?: number;
  /** How long to wait for the server to answer (default 15 s; an external URL gets 3 s). */
  readonly timeoutMs?: number;
  /** Appends the server's output (process or container) to this file. */
  readonly logFile?: string;
  /** Environment used to search PATH (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Nodes of a local NATS cluster (default 1: one server). Above 1 the binary is started that many
   * times, each with routes to all the others; the URL lists every node's client address.
   */
  readonly clusterSize?: number;
  /**
   * Require credentials (`writeNatsAuth`): the server runs with its users and permissions, and a
   * cluster's routes authenticate too. Absent: an open server.
   */
  readonly auth?: Pick<NatsAuth, 'configFile' | 'route'>;
  /**
   * Clients must speak TLS, with this server certificate and key (PEM): the nats-server binary
   * only (`--tls --tlscert --tlskey`). Clients verify it against the CA that signed it (nats.tls.caFile).
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /**
   * Open the monitoring endpoint (`monitorUrl`) on a single server too, on a loopback host only: a
   * benchmark reads `/varz`'s message counts. Off by default, since it answers without credentials;
   * the nodes of a local cluster always get one.
   */
  readonly monitor?: boolean;
}

export interface NatsServerHandle {
  /** Client URL, e.g. `nats://127.0.0.1:42345`. */
  readonly url: string;
  readonly kind: NatsKind;
  /** The nats-server process (kind `process`). */
  readonly pid?: number;
  /**
   * Monitoring endpoint, e.g. `http://127.0.0.1:42346`: nodes of a local cluster (a chaos run
   * asks their `/varz` which node is busiest), and a single server started with `monitor`. It
   * answers without credentials, so a single server runs without one unless asked, and it binds
   * loopback only.
   */
  readonly monitorUrl?: string;
  /**
   * Settles when the server process exits, however it ended (kind `process`): what a supervisor
   * waits on. Absent for a cluster as a whole, a container and an external server.
   */
  readonly exited?: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** The container (kind `docker`). */
  readonly containerId?: string;
  /** The nodes of a local cluster (`clusterSize` > 1), each stoppable on its own. */
  readonly nodes?: readonly NatsServerHandle[];
  /**
   * Starts node `index` of a local cluster again, on its client and route ports and with its
   * routes, after it was stopped: a lost node coming back. The others route to it again on their own.
   */
  startNode?(index: number): Promise<void>;
  /** Stops what was started (nothing for `external`); idempotent. */
  stop(): Promise<void>;
}

export const NATS_INSTALL_HINT = [
  'sluice needs a NATS server. Any one of these works:',
  '  - Debian/Ubuntu:  sudo apt-get install nats-server',
  '  - macOS:          brew install nats-server',
  '  - Docker:         start Docker; sluice then runs nats:2.10-alpine itself',
  '                    (or run it yourself: docker run -p 4222:4222 nats:2.10-alpine)',
  '  - an existing server: set NATS_URL=nats://host:4222 (or nats.url in sluice.yaml)',
].join('\n');

/** No NATS server could be used: none given, none installed, no Docker; or the given one is unreachable. */
export class NatsUnavailableError extends Error {
  override readonly name = 'NatsUnavailableError';
}

const EXTRA_BIN_DIRS = ['/usr/sbin', '/usr/local/bin', '/usr/local/sbin', '/opt/homebrew/bin'];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The nats-server binary on PATH (or in the sbin/Homebrew folders PATH often lacks), if any. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const names = process.platform === 'win32' ? ['nats-server.exe', 'nats-server'] : ['nats-server'];
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_BIN_DIRS];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The host:port pairs of a NATS URL list (`nats://a:4222,nats://b:4222`, `localhost:4222`). */
export function parseNatsServers(url: string): { host: string; port: number }[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const withScheme = entry.includes('://') ? entry : `nats://${entry}`;
      let parsed: URL;
      try {
        parsed = new URL(withScheme);
      } catch {
        throw new NatsUnavailableError(`NATS URL "${entry}" is not a valid URL (expected nats://host:port)`);
      }
      const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!host) throw new NatsUnavailableError(`NATS URL "${entry}" has no host (expected nats://host:port)`);
      const defaultPort = parsed.protocol === 'wss:' ? 443 : parsed.protocol === 'ws:' ? 80 : 4222;
      return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
    });
}

/**
 * A NATS server for the cluster: the given URL if any (checked, not started), else a nats-server
 * child process on free ports, else a Docker container, else NatsUnavailableError with install
 * instructions.
 */
export async function startNats(options: StartNatsOptions = {}): Promise<NatsServerHandle> {
  const clusterSize = options.clusterSize ?? 1;
  if (options.url) {
    if (clusterSize > 1) throw new NatsUnavailableError(`nats.clusterSize ${clusterSize} starts a local NATS cluster; it cannot be combined with nats.url / NATS_URL (${options.url})`);
    return useExternal(options.url, options.timeoutMs ?? 3_000);
  }

  const binary = options.binary === false ? undefined : (options.binary ?? findNatsServer(options.env));
  if (options.tls && (!binary || clusterSize > 1)) throw new NatsUnavailableError('a NATS with TLS is started from the nats-server binary, as one server (not a cluster, not in Docker)');
  if (binary && clusterSize > 1) return startCluster(binary, clusterSize, options);
  if (binary) return startProcess(binary, options);
  if (clusterSize > 1) throw new NatsUnavailableError(`nats.clusterSize ${clusterSize} needs the nats-server binary (a local cluster is not started in Docker).\n${NATS_INSTALL_HINT}`);

  if (options.docker !== false && (await dockerCliAvailable())) return startContainer(options);

  throw new NatsUnavailableError(
    `no NATS server: NATS_URL is not set, nats-server is not installed (searched PATH and ${EXTRA_BIN_DIRS.join(', ')})` +
      `${options.docker === false ? '' : ' and Docker is not available (`docker info` failed)'}.\n${NATS_INSTALL_HINT}`,
  );
}

async function useExternal(url: string, timeoutMs: number): Promise<NatsServerHandle> {
  const servers = parseNatsServers(url);
  if (servers.length === 0) throw new NatsUnavailableError(`NATS URL "${url}" names no server`);
  const results = await Promise.all(servers.map((s) => canConnect(s.host, s.port, timeoutMs)));
  if (!results.some(Boolean)) {
    const where = servers.map((s) => urlHostPort(s.host, s.port)).join(', ');
    throw new NatsUnavailableError(
      `the NATS server at ${url} (from NATS_URL or nats.url) is not reachable: no TCP connection to ${where} within ${timeoutMs} ms.\n` +
        'Start that server, or unset NATS_URL / nats.url so sluice starts its own.',
    );
  }
  return { url, kind: 'external', stop: async () => undefined };
}

const MAX_PORT_ATTEMPTS = 3;

/**
 * A local cluster: `size` nats-servers, each routing to all the others (full mesh, as NATS's own
 * cluster examples), started one after another. Each logs to its own file (nats-0.log, …).
 */
async function startCluster(binary: string, size: number, options: StartNatsOptions): Promise<NatsServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const routePorts = await freePorts(size, host);
  // With auth, routes authenticate: a process that reaches a route port cannot join the cluster and read everything.
  const routeUser = options.auth ? `${options.auth.route.user}:${options.auth.route.password}@` : '';
  const route = (port: number | undefined) => `nats://${routeUser}${urlHostPort(host, port ?? 0)}`;
  const nodes: NatsServerHandle[] = [];
  // Node i on the given client port (a free one the first time; its own when it starts again).
  const startNode = (i: number, port: number | undefined): Promise<NatsServerHandle> => {
    const logFile = options.logFile?.replace(/(\.log)?$/, `-${i}.log`);
    const clusterArgs = ['--name', `nats-${i}`, '--cluster_name', 'sluice', '--cluster', route(routePorts[i]), '--routes', routePorts.filter((_, j) => j !== i).map(route).join(',')];
    return startProcess(binary, { ...options, ...(logFile ? { logFile } : {}), port }, clusterArgs, { monitor: true });
  };
  try {
    for (let i = 0; i < size; i++) nodes.push(await startNode(i, undefined));
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw error;
  }
  return {
    url: nodes.map((n) => n.url).join(','),
    kind: 'process',
    pid: nodes[0]!.pid,
    nodes,
    startNode: async (i) => {
      const node = nodes[i];
      if (!node) throw new Error(`no NATS node ${i}: the cluster has ${nodes.length}`);
      const [server] = parseNatsServers(node.url);
      if (await natsAnswers(host, server!.port, 500)) throw new Error(`NATS node ${i} (${node.url}) is running: stop it first`);
      // Stopping is idempotent, so the handle replaced here may be stopped again by stop().
      nodes[i] = await startNode(i, server!.port);
    },
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
  };
}

/**
 * Starts one nats-server process and resolves once it answers.
 *
 * Its monitoring listener serves `/connz`, `/subsz`, `/varz` to anyone who reaches it,
 * with no credentials (the server's `authorization` does not cover it). It is opened only when
 * asked (`monitor`: the nodes of a local cluster, or `options.monitor`), and only on a loopback host: nats-server binds
 * it where `-a` binds the clients (its HTTPHost defaults to Host) and has no flag to bind it apart.
 */
async function startProcess(binary: string, options: StartNatsOptions, extraArgs: readonly string[] = [], { monitor = false } = {}): Promise<NatsServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const timeoutMs = options.timeoutMs ?? 15_000;
  for (let attempt = 1; ; attempt++) {
    const [port, picked] = await pickPorts(host, options.port);
    if (port === undefined || picked === undefined) throw new Error('no free ports for nats-server');
    const monitorPort = (monitor || options.monitor === true) && isLoopbackHost(host) ? picked : undefined;
    const log = new OutputLog(options.logFile, 20);
    const monitorArgs = monitorPort === undefined ? [] : ['-m', String(monitorPort)];
    // The route password stays out of the log.
    const shown = extraArgs.map((arg) => arg.replace(/\/\/([^:/@]+):[^@/]+@/g, '//$1:***@'));
    log.note(`--- ${new Date().toISOString()} ${binary}${options.auth ? ` -c ${options.auth.configFile}` : ''} -a ${host} -p ${port}${monitorArgs.length > 0 ? ` -m ${monitorPort}` : ''}${shown.length > 0 ? ` ${shown.join(' ')}` : ''}`);
    // Its own process group: a Ctrl-C in the terminal reaches the launcher, which stops NATS only
    // after the services have drained their connections.
    const authArgs = options.auth ? ['-c', options.auth.configFile] : [];
    const tlsArgs = options.tls ? ['--tls', '--tlscert', options.tls.certFile, '--tlskey', options.tls.keyFile] : [];
    const child = spawn(binary, [...authArgs, ...tlsArgs, '-a', host, '-p', String(port), ...monitorArgs, ...extraArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    trackChild(child);
    log.attach(child.stdout);
    log.attach(child.stderr);
    const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => {
        if (child.pid === undefined) resolve({ code: null, signal: null });
      });
    });

    const deadline = Date.now() + timeoutMs;
    let failure: string | undefined;
    for (;;) {
      if (await natsAnswers(host, port, 500)) break;
      const err = await Promise.race([spawnError, delay(50).then(() => undefined)]);
      if (err) {
        failure = `could not run ${binary}: ${err.message}`;
        break;
      }
      if (!isRunning(child)) {
        await log.settled();
        failure = `nats-server exited before it was ready (${describeExit(child.exitCode, child.signalCode)}):\n${formatTail(log.tail())}`;
        break;
      }
      if (Date.now() > deadline) {
        failure = `nats-server did not answer on ${host}:${port} within ${timeoutMs} ms:\n${formatTail(log.tail())}`;
        break;
      }
    }

    if (failure === undefined) {
      let stopping: Promise<void> | undefined;
      return {
        url: `nats://${urlHostPort(host, port)}`,
        kind: 'process',
        pid: child.pid,
        ...(monitorPort === undefined ? {} : { monitorUrl: `http://${urlHostPort(host, monitorPort)}` }),
        exited,
        stop: () =>
          (stopping ??= terminate(child, 5_000).then(() => log.settled(500)).then(() => log.close())),
      };
    }
    await terminate(child, 2_000);
    await log.close();
    const portTaken = /address already in use/i.test(log.tail().join('\n'));
    // Another process may have taken a port between picking and binding it: try fresh ports.
    if (attempt < MAX_PORT_ATTEMPTS && portTaken && options.port === undefined) continue;
    if (portTaken && options.port !== undefined) failure = `port ${port} was asked for, and another process has taken it: ${failure}`;
    throw new NatsUnavailableError(failure);
  }
}

/** The client port (the asked-for one, or a free one) and a free monitoring port distinct from it. */
async function pickPorts(host: string, port: number | undefined): Promise<(number | undefined)[]> {
  if (port === undefined) return freePorts(2, host);
  // The asked-for port is free as well, so the OS may hand it out again: take another.
  const [a, b] = await freePorts(2, host);
  return [port, a === port ? b : a];
}

async function startContainer(options: StartNatsOptions): Promise<NatsServerHandle> {
  const image = options.image ?? process.env.SLUICE_NATS_IMAGE ?? DEFAULT_NATS_IMAGE;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const publish = options.port === undefined ? '127.0.0.1::4222' : `127.0.0.1:${options.port}:4222`;
  // With auth the container reads the run's config, mounted read-only.
  const authArgs = options.auth ? ['-v', `${dirname(options.auth.configFile)}:/etc/sluice-nats:ro`] : [];
  const serverArgs = options.auth ? ['-c', `/etc/sluice-nats/${basename(options.auth.configFile)}`] : [];
  const run = await docker(['run', '-d', '--rm', '-p', publish, ...authArgs, image, ...serverArgs, '-p', '4222'], 120_000);
  const id = run.stdout.trim().split('\n').pop() ?? '';
  if (run.code !== 0 || !id) {
    throw new NatsUnavailableError(`docker run ${image} failed: ${run.stderr.trim() || `exit code ${run.code}`}\n${NATS_INSTALL_HINT}`);
  }
  trackContainer(id);
  const remove = async (): Promise<void> => {
    if (options.logFile) {
      const logs = await docker(['logs', id], 10_000);
      const log = new OutputLog(options.logFile, 0);
      log.note(`--- ${new Date().toISOString()} container ${id.slice(0, 12)} (${image})`);
      for (const line of `${logs.stdout}${logs.stderr}`.split('\n').filter(Boolean)) log.note(line);
      await log.close();
    }
    await docker(['rm', '-f', id], 30_000);
    untrackContainer(id);
  };

  try {
    const mapped = await docker(['port', id, '4222/tcp'], 10_000);
    // "127.0.0.1:49153" (one line per binding)
    const match = /:(\d+)\s*$/m.exec(mapped.stdout.trim().split('\n')[0] ?? '');
    if (mapped.code !== 0 || !match?.[1]) throw new Error(`docker port ${id.slice(0, 12)} 4222/tcp: ${mapped.stderr.trim() || mapped.stdout.trim()}`);
    const port = Number(match[1]);
    const deadline = Date.now() + timeoutMs;
    while (!(await natsAnswers('127.0.0.1', port, 500))) {
      if (Date.now() > deadline) {
        const logs = await docker(['logs', '--tail', '20', id], 10_000);
        throw new Error(`NATS in container ${id.slice(0, 12)} did not answer on 127.0.0.1:${port} within ${timeoutMs} ms:\n${formatTail(`${logs.stdout}${logs.stderr}`.split('\n').filter(Boolean))}`);
      }
      await delay(100);
    }
    let stopping: Promise<void> | undefined;
    return { url: `nats://127.0.0.1:${port}`, kind: 'docker', containerId: id, stop: () => (stopping ??= remove()) };
  } catch (error) {
    await remove();
    throw new NatsUnavailableError((error as Error).message, { cause: error });
  }
}
