import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@sluice/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterStartError,
  SERVICE_NAMES,
  canConnect,
  findNatsServer,
  freePort,
  parseNatsServers,
  startLocalCluster,
  waitForPidExit,
  type LocalClusterOptions,
  type ServiceName,
} from './index.js';

/**
 * The launcher itself, with stand-in services (a few lines of node:http that read their port from
 * the same flags the real ones get), so its start, failure and stop paths can be forced. The real
 * services run through it in the apps' integration specs and `sluice up`.
 */
const FAKE_SERVICE = `
import http from 'node:http';
const name = process.argv[1].split('/').pop().replace('.mjs', '');
const key = name === 'flow-controller' ? 'flowController' : name;
let port = 0;
for (const arg of process.argv.slice(2)) {
  const m = new RegExp('^--' + key + '\\\\.port=(\\\\d+)$').exec(arg);
  if (m) port = Number(m[1]);
}
if (process.env.FAKE_CRASH === name) { console.error(name + ': crashing on purpose'); process.exit(3); }
console.log(name + ' up nats=' + process.env.NATS_URL + ' extra=' + (process.env.FAKE_EXTRA ?? ''));
const server = http.createServer((req, res) => { res.statusCode = 200; res.end('ok'); });
server.listen(port, '127.0.0.1');
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => {
  if (process.env.FAKE_HANG === name) return; // ignores the stop signal: needs SIGKILL
  server.close();
  process.exit(0);
});
`;

const FREE_PORTS = ['--gateway.port=0', '--admission.port=0', '--flowController.port=0', '--router.port=0', '--worker.port=0'];
const binary = findNatsServer() !== undefined;
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
    expect(ready.sort()).toEqual([...SERVICE_NAMES].sort());
    expect(cluster.services.map((s) => s.name)).toEqual([...SERVICE_NAMES]);
    // port 0 became a real port, the same for the caller and the service
    expect(cluster.config.gateway.port).toBeGreaterThan(0);
    expect(cluster.gatewayUrl).toBe(`http://127.0.0.1:${cluster.config.gateway.port}`);
    expect((await fetch(`${cluster.gatewayUrl}/readyz`)).status).toBe(200);
    // each service got NATS_URL and the caller's env, and its output went to onLine and its log
    expect(lines).toContain(`worker: worker up nats=${cluster.natsUrl} extra=from-options`);
    expect(readFileSync(join(dir, 'logs', 'gateway.log'), 'utf8')).toContain('gateway up nats=');

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
    expect(order).toEqual([...SERVICE_NAMES]);
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

  it('reports a service that dies after start-up through onExit, not after stop()', async () => {
    const exits: string[] = [];
    let reported: () => void = () => undefined;
    const reportedOnce = new Promise<void>((resolve) => (reported = resolve));
    const cluster = await startLocalCluster({
      ...base,
      services: ['worker', 'router'],
      onExit: (exit) => {
        exits.push(`${exit.name} ${exit.signal} ${exit.logTail.join('|')}`);
        reported();
      },
    });
    const worker = cluster.services.find((s) => s.name === 'worker')!;
    process.kill(worker.pid, 'SIGKILL');
    await reportedOnce;
    await cluster.stop();
    expect(exits).toEqual([expect.stringMatching(/^worker SIGKILL worker up nats=/)]);
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

  it('says to build when a service entry is missing', async () => {
    const error = await startLocalCluster({ ...base, serviceEntry: (name) => join(dir, 'missing', `${name}.js`) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterStartError);
    expect((error as Error).message).toContain('npm run build');
  });
});
