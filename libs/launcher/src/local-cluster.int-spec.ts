import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@sluice/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterStartError,
  SERVICE_NAMES,
  SERVICE_NODE_FLAGS,
  canConnect,
  findNatsServer,
  freePort,
  natsAnswers,
  parseNatsServers,
  startLocalCluster,
  startNats,
  waitForPidExit,
  type LocalCluster,
  type LocalClusterOptions,
  type RestartEvent,
  type ServiceExit,
  type ServiceInfo,
  type ServiceName,
} from './index.js';

/**
 * The launcher itself, with stand-in services (a few lines of node:http that read their port from
 * the same flags the real ones get), so its start, failure and stop paths can be forced. The real
 * services run through it in the apps' integration specs and `sluice up`.
 */
const FAKE_SERVICE = `
import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
const name = process.argv[1].split('/').pop().replace('.mjs', '');
const key = name === 'flow-controller' ? 'flowController' : name;
let port = 0;
for (const arg of process.argv.slice(2)) {
  const m = new RegExp('^--' + key + '\\\\.port=(\\\\d+)$').exec(arg);
  if (m) port = Number(m[1]);
}
if (process.env.FAKE_CRASH === name) { console.error(name + ': crashing on purpose'); process.exit(3); }
if (process.env.FAKE_CRASH_FILE && existsSync(process.env.FAKE_CRASH_FILE + '.' + name)) { console.error(name + ': crashing at start'); process.exit(4); }
console.log(name + ' up nats=' + process.env.NATS_URL + ' extra=' + (process.env.FAKE_EXTRA ?? '') + ' node=' + process.execArgv.join(' '));
// The router counts the instances it has heard from as the real one does; FAKE_HEARD_FILE holds the count (none yet while absent).
const heard = () => !process.env.FAKE_HEARD_FILE ? 1000000 : existsSync(process.env.FAKE_HEARD_FILE) ? Number(readFileSync(process.env.FAKE_HEARD_FILE, 'utf8')) : 0;
const server = http.createServer((req, res) => {
  res.statusCode = 200;
  res.end(name === 'router' && req.url === '/metrics' ? 'llm_d_epp_ready_endpoints{name="pool"} ' + heard() + '\\n' : 'ok');
});
server.listen(port, '127.0.0.1');
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => {
  if (process.env.FAKE_HANG === name) return; // ignores the stop signal: needs SIGKILL
  server.close();
  process.exit(0);
});
`;

const FREE_PORTS = ['--gateway.port=0', '--admission.port=0', '--flowController.port=0', '--router.port=0', '--worker.port=0'];

/** Polls until `check` holds; fails with `what` after timeoutMs. */
async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function answers(url: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

const proc = (cluster: LocalCluster, name: string) => cluster.processes().find((p) => p.name === name)!;
/** The launcher's start lines in a log file: one per run of the process. */
const starts = (logFile: string) => readFileSync(logFile, 'utf8').split('\n').filter((line) => /^--- \S+ pid \d+: node /.test(line)).length;
const binary = findNatsServer() !== undefined;
/** What a cluster runs by default: every service but the autoscaler, which runs only when enabled. */
const DEFAULT_SERVICES = SERVICE_NAMES.filter((name) => name !== 'autoscaler');
const required = process.env.CI === 'true';

describe.runIf(binary || required)('startLocalCluster', () => {
  let dir: string;
  let base: LocalClusterOptions;

  beforeAll(() => {
    if (!binary) throw new Error('CI=true but nats-server is not installed');
    dir = mkdtempSync(join(tmpdir(), 'sluice-harness-'));
    for (const name of SERVICE_NAMES) writeFileSync(join(dir, `${name}.mjs`), FAKE_SERVICE);
    base = {
      rootDir: dir,
      logDir: join(dir, 'logs'),
      configArgs: FREE_PORTS,
      serviceEntry: (name: ServiceName) => join(dir, `${name}.mjs`),
      stopTimeoutMs: 1_000,
    };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts NATS and every service, reports them ready, and stops them all', async () => {
    const ready: string[] = [];
    const lines: string[] = [];
    const cluster = await startLocalCluster({
      ...base,
      env: { FAKE_EXTRA: 'from-options' },
      onReady: (s) => ready.push(s.name),
      onLine: (service, line) => lines.push(`${service}: ${line}`),
    });
    expect(cluster.natsKind).toBe('process');
    expect(ready.sort()).toEqual([...DEFAULT_SERVICES].sort());
    expect(cluster.services.map((s) => s.name)).toEqual([...DEFAULT_SERVICES]);
    // port 0 became a real port, the same for the caller and the service
    expect(cluster.config.gateway.port).toBeGreaterThan(0);
    expect(cluster.gatewayUrl).toBe(`http://127.0.0.1:${cluster.config.gateway.port}`);
    expect((await fetch(`${cluster.gatewayUrl}/readyz`)).status).toBe(200);
    // each service got NATS_URL, the caller's env and the services' node flags, and its output went to onLine and its log
    expect(lines).toContain(`worker: worker up nats=${cluster.natsUrl} extra=from-options node=${SERVICE_NODE_FLAGS.join(' ')}`);
    expect(readFileSync(join(dir, 'logs', 'gateway.log'), 'utf8')).toContain('gateway up nats=');
    expect(readFileSync(join(dir, 'logs', 'worker-0.log'), 'utf8')).toContain('worker up nats=');

    const [nats] = parseNatsServers(cluster.natsUrl);
    await cluster.stop();
    await cluster.stop(); // idempotent
    for (const s of cluster.services) expect(await waitForPidExit(s.pid, 100)).toBe(true);
    expect(await canConnect(nats!.host, nats!.port, 500)).toBe(false);
  });

  it('starts one after another when parallel is false', async () => {
    const order: string[] = [];
    const cluster = await startLocalCluster({ ...base, parallel: false, onReady: (s) => order.push(s.name) });
    await cluster.stop();
    expect(order).toEqual([...DEFAULT_SERVICES]);
  });

  it('fails with the exit code and log tail of a service that dies, leaving nothing running', async () => {
    const started: number[] = [];
    let natsUrl = '';
    const error = await startLocalCluster({
      ...base,
      parallel: false,
      env: { FAKE_CRASH: 'flow-controller' },
      onNatsReady: (n) => (natsUrl = n.url),
      onReady: (s) => started.push(s.pid),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterStartError);
    const { message, service, logTail } = error as ClusterStartError;
    expect(service).toBe('flow-controller');
    expect(message).toContain('exit code 3');
    expect(message).toContain('flow-controller: crashing on purpose');
    expect(logTail).toContain('flow-controller: crashing on purpose');
    expect(started).toHaveLength(2); // worker and router were up, and are stopped again
    for (const pid of started) expect(await waitForPidExit(pid, 100)).toBe(true);
    const [nats] = parseNatsServers(natsUrl);
    expect(await canConnect(nats!.host, nats!.port, 500)).toBe(false);
  });

  it('SIGKILLs a service that ignores SIGTERM after stopTimeoutMs', async () => {
    const cluster = await startLocalCluster({ ...base, services: ['worker', 'router'], env: { FAKE_HANG: 'router' }, stopTimeoutMs: 300 });
    const router = cluster.services.find((s) => s.name === 'router')!;
    const t0 = Date.now();
    await cluster.stop();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(await waitForPidExit(router.pid, 100)).toBe(true);
  });

  it('with restart off, reports a service that dies after start-up through onExit, not after stop()', async () => {
    const exits: string[] = [];
    let reported: () => void = () => undefined;
    const reportedOnce = new Promise<void>((resolve) => (reported = resolve));
    const cluster = await startLocalCluster({
      ...base,
      services: ['worker', 'router'],
      restart: false,
      onExit: (exit) => {
        exits.push(`${exit.name} ${exit.process} ${exit.signal} ${exit.logTail.join('|')}`);
        reported();
      },
    });
    const worker = cluster.services.find((s) => s.name === 'worker')!;
    process.kill(worker.pid, 'SIGKILL');
    await reportedOnce;
    expect(cluster.processes().find((p) => p.name === 'worker-0')).toMatchObject({ state: 'exited', restarts: 0 });
    await cluster.stop();
    expect(exits).toEqual([expect.stringMatching(/^worker worker-0 SIGKILL worker up nats=/)]);
  });

  it('rejects a bad config before starting anything', async () => {
    let natsStarted = false;
    const error = await startLocalCluster({ ...base, configArgs: ['--gateway.port=nope'], onNatsReady: () => (natsStarted = true) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('gateway.port');
    expect(natsStarted).toBe(false);
  });

  it('refuses a port another process already serves', async () => {
    const port = await freePort();
    const squatter = (await import('node:http')).createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const error = await startLocalCluster({ ...base, configArgs: [...FREE_PORTS, `--gateway.port=${port}`] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterStartError);
      expect((error as Error).message).toContain(`gateway.port ${port}`);
    } finally {
      squatter.close();
    }
  });

  it('stops what it started when aborted during start-up', async () => {
    const controller = new AbortController();
    const pids: number[] = [];
    const error = await startLocalCluster({
      ...base,
      parallel: false,
      signal: controller.signal,
      onReady: (s) => {
        pids.push(s.pid);
        if (s.name === 'router') controller.abort(new Error('test abort'));
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('test abort');
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await waitForPidExit(pid, 100)).toBe(true);
  });

  it('is ready only once the router has heard from every starting worker instance, and names the shortfall when it never does', async () => {
    const heardFile = join(dir, 'heard');
    rmSync(heardFile, { force: true });
    let resolvedAt: number | undefined;
    // Every process answers /readyz at once; the router hears 3 of the 8 instances (2 processes × 4), then all of them.
    const starting = startLocalCluster({ ...base, configArgs: [...FREE_PORTS, '--worker.processes=2'], env: { FAKE_HEARD_FILE: heardFile } }).then((c) => {
      resolvedAt = Date.now();
      return c;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    writeFileSync(heardFile, '3');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(resolvedAt).toBeUndefined();
    const allHeardAt = Date.now();
    writeFileSync(heardFile, '8');
    const cluster = await starting;
    await cluster.stop();
    expect(resolvedAt).toBeGreaterThanOrEqual(allHeardAt);

    writeFileSync(heardFile, '1');
    const error = await startLocalCluster({ ...base, readyTimeoutMs: 1_500, env: { FAKE_HEARD_FILE: heardFile } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterStartError);
    expect((error as Error).message).toContain('router had heard from 1 of the 4 worker instances');
  });

  it('says to build when a service entry is missing', async () => {
    const error = await startLocalCluster({ ...base, serviceEntry: (name) => join(dir, 'missing', `${name}.js`) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterStartError);
    expect((error as Error).message).toContain('npm run build');
  });

  describe('several worker processes and the supervisor', () => {
    it('runs worker.processes workers, each on its own port with its own log', async () => {
      const cluster = await startLocalCluster({ ...base, services: ['worker', 'router'], configArgs: [...FREE_PORTS, '--worker.processes=3'] });
      const processes = cluster.processes();
      expect(processes.map((p) => `${p.name}/${p.service}`)).toEqual(['worker-0/worker', 'worker-1/worker', 'worker-2/worker', 'router/router']);
      expect(new Set(processes.map((p) => p.url)).size).toBe(4);
      expect(new Set(processes.map((p) => p.pid)).size).toBe(4);
      for (const p of processes) expect(await answers(p.url)).toBe(true);
      expect(processes[0]!.url).toBe(`http://127.0.0.1:${cluster.config.worker.port}`);
      expect(cluster.serviceArgs).toContain(`--worker.port=${cluster.config.worker.port}`);
      expect(readFileSync(join(dir, 'logs', 'worker-2.log'), 'utf8')).toContain(`--worker.port=${new URL(processes[2]!.url).port}`);
      await cluster.stop();
      for (const p of processes) expect(await waitForPidExit(p.pid, 100)).toBe(true);
    });

    it('restarts a process that exits, on a doubling delay, and reports each restart', async () => {
      const restarts: RestartEvent[] = [];
      const ready: ServiceInfo[] = [];
      const cluster = await startLocalCluster({ ...base, services: ['worker', 'router'], onRestart: (e) => restarts.push(e), onReady: (s) => ready.push(s) });
      try {
        const first = cluster.signal('router', 'SIGKILL');
        await eventually(() => proc(cluster, 'router').restarts === 1 && proc(cluster, 'router').state === 'ready', 5_000, 'router restarted');
        const second = cluster.signal('router', 'SIGKILL');
        expect(second).not.toBe(first);
        await eventually(() => proc(cluster, 'router').restarts === 2 && proc(cluster, 'router').state === 'ready', 5_000, 'router restarted twice');

        expect(restarts.map((e) => [e.name, e.service, e.attempt, e.delayMs, e.exit.signal])).toEqual([
          ['router', 'router', 1, 250, 'SIGKILL'],
          ['router', 'router', 2, 500, 'SIGKILL'],
        ]);
        expect(restarts[0]!.exit.logTail).toContain('router up nats=' + cluster.natsUrl + ' extra= node=' + SERVICE_NODE_FLAGS.join(' '));
        // onReady again after each restart, with the new pid.
        const routerPids = ready.filter((s) => s.process === 'router').map((s) => s.pid);
        expect(routerPids).toHaveLength(3);
        expect(routerPids[2]).toBe(proc(cluster, 'router').pid);
        expect(new Set(routerPids).size).toBe(3);
        expect(await answers(proc(cluster, 'router').url)).toBe(true);
        const log = readFileSync(proc(cluster, 'router').logFile, 'utf8');
        expect(log).toContain('router exited (signal SIGKILL); restarting in 250 ms (attempt 1)');
        expect(log).toContain('router exited (signal SIGKILL); restarting in 500 ms (attempt 2)');
        expect(proc(cluster, 'worker-0').restarts).toBe(0);
      } finally {
        await cluster.stop();
      }
    });

    it('gives up on a process whose restarts keep failing before they are ready, and reports it through onExit', async () => {
      const crashFile = join(dir, 'crash');
      const restarts: RestartEvent[] = [];
      let exit: ServiceExit | undefined;
      const cluster = await startLocalCluster({
        ...base,
        services: ['worker', 'router'],
        env: { FAKE_CRASH_FILE: crashFile },
        restartPolicy: { initialDelayMs: 10 },
        onRestart: (e) => restarts.push(e),
        onExit: (e) => (exit = e),
      });
      try {
        writeFileSync(`${crashFile}.router`, '');
        cluster.signal('router', 'SIGKILL');
        await eventually(() => exit !== undefined, 10_000, 'the supervisor giving up');
        expect(restarts.map((e) => e.delayMs)).toEqual([10, 20, 40, 80, 160]);
        expect(exit).toMatchObject({ name: 'router', process: 'router', code: 4, gaveUp: { startFailures: 5 } });
        expect(exit!.logTail).toContain('router: crashing at start');
        expect(proc(cluster, 'router')).toMatchObject({ state: 'failed', restarts: 5 });
        expect(() => cluster.signal('router', 'SIGTERM')).toThrow('router is not running (failed)');
        // The log file is appended asynchronously: the note may land just after onExit (seen in fresh-clone CI).
        const logFile = proc(cluster, 'router').logFile;
        await eventually(() => readFileSync(logFile, 'utf8').includes('before it was ready, 5 starts in a row; giving up'), 2_000, 'the give-up note in the log');
        expect(proc(cluster, 'worker-0')).toMatchObject({ state: 'ready', restarts: 0 });
      } finally {
        unlinkSync(`${crashFile}.router`);
        await cluster.stop();
      }
    });

    it('stop() cancels a pending restart', async () => {
      let restarting: () => void = () => undefined;
      const scheduled = new Promise<void>((resolve) => (restarting = resolve));
      const logDir = mkdtempSync(join(dir, 'logs-')); // a log of its own, to count the starts in
      const cluster = await startLocalCluster({ ...base, logDir, services: ['worker'], restartPolicy: { initialDelayMs: 300 }, onRestart: () => restarting() });
      cluster.signal('worker-0', 'SIGKILL');
      await scheduled;
      expect(proc(cluster, 'worker-0').state).toBe('restarting');
      await cluster.stop();
      // Past the moment the restart was due: nothing was started again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(proc(cluster, 'worker-0')).toMatchObject({ state: 'stopped', restarts: 0 });
      expect(starts(proc(cluster, 'worker-0').logFile)).toBe(1);
    });

    it('signals a process by name (SIGSTOP and SIGCONT too), names the known ones for an unknown name, and stops a frozen one', async () => {
      const restarts: RestartEvent[] = [];
      const cluster = await startLocalCluster({ ...base, services: ['worker', 'router'], stopTimeoutMs: 5_000, onRestart: (e) => restarts.push(e) });
      expect(() => cluster.signal('worker-7', 'SIGTERM')).toThrow('unknown process "worker-7"; this cluster runs: worker-0, router');
      const router = proc(cluster, 'router');
      expect(cluster.signal('router', 'SIGSTOP')).toBe(router.pid);
      expect(await answers(router.url, 300)).toBe(false);
      cluster.signal('router', 'SIGCONT');
      expect(await answers(router.url)).toBe(true);
      cluster.signal('router', 'SIGSTOP');
      const t0 = Date.now();
      await cluster.stop();
      // It got SIGCONT with its SIGTERM, so it did not wait for the SIGKILL at 5 s.
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(await waitForPidExit(router.pid, 100)).toBe(true);
      expect(restarts).toEqual([]);
    });

    it('restartNats brings the launcher’s nats-server back on the same URL; stop() cuts its down time short', async () => {
      const cluster = await startLocalCluster({ ...base, services: ['worker'] });
      const [server] = parseNatsServers(cluster.natsUrl);
      const restarted = cluster.restartNats(300);
      await expect(cluster.restartNats(10)).rejects.toThrow('a NATS restart is already under way');
      await eventually(async () => !(await canConnect(server!.host, server!.port, 200)), 2_000, 'NATS down');
      await restarted;
      expect(await natsAnswers(server!.host, server!.port)).toBe(true);

      const long = cluster.restartNats(60_000);
      await eventually(async () => !(await canConnect(server!.host, server!.port, 200)), 2_000, 'NATS down again');
      const t0 = Date.now();
      await cluster.stop();
      await long;
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(await canConnect(server!.host, server!.port, 200)).toBe(false);
      await expect(cluster.restartNats(10)).rejects.toThrow('the cluster is stopping');
    });

    it('refuses to restart a NATS server it did not start', async () => {
      const own = await startNats();
      try {
        const cluster = await startLocalCluster({ ...base, services: ['worker'], natsUrl: own.url });
        await expect(cluster.restartNats(100)).rejects.toThrow(`cannot restart NATS at ${own.url}: the launcher did not start it`);
        await cluster.stop();
      } finally {
        await own.stop();
      }
    });
  });
});
