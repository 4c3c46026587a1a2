import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, findNatsServer, startLocalCluster, type LocalCluster, type RestartEvent } from './index.js';

/**
 * The handles chaos runs use, on the real built services and a real nats-server: two worker
 * processes, one killed and restarted by the supervisor, and NATS taken down and brought back.
 * One cluster for all, light (one instance per worker, the model 1000 times faster).
 */

const built = existsSync(join(REPO_ROOT, 'apps', 'gateway', 'dist', 'main.js'));
const required = process.env.CI === 'true';

/** Polls until `check` holds; fails with `what` after timeoutMs. */
async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readyz(url: string): Promise<number> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

/** The worker instances the router knows (`sluice_router_inflight` has a sample per instance). */
async function routedInstances(routerUrl: string): Promise<Set<string>> {
  const text = await (await fetch(`${routerUrl}/metrics`)).text();
  const ids = text
    .split('\n')
    .filter((line) => line.startsWith('sluice_router_inflight{'))
    .map((line) => /worker_instance="([^"]+)"/.exec(line)?.[1])
    .filter((id): id is string => id !== undefined);
  return new Set(ids);
}

async function completion(gatewayUrl: string): Promise<number> {
  const res = await fetch(`${gatewayUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3-14b', prompt: [1, 2, 3, 4], max_tokens: 2 }),
  });
  await res.body?.cancel();
  return res.status;
}

describe.runIf((built && findNatsServer() !== undefined) || required)('a supervised cluster with two worker processes', () => {
  let cluster: LocalCluster;
  let logDir: string;
  const restarts: RestartEvent[] = [];
  const routerUrl = () => cluster.processes().find((p) => p.name === 'router')!.url;
  const worker = (name: string) => cluster.processes().find((p) => p.name === name)!;

  beforeAll(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'sluice-chaos-'));
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      logDir,
      configArgs: [...FREE_PORT_ARGS, '--worker.processes=2', '--worker.instances=1', '--worker.timeScale=1000'],
      onRestart: (event) => restarts.push(event),
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('runs worker-0 and worker-1 on their own ports and logs, and the router sees both instances', async () => {
    const processes = cluster.processes();
    expect(processes.map((p) => p.name)).toEqual(['worker-0', 'worker-1', 'router', 'flow-controller', 'admission', 'gateway']);
    expect(processes.every((p) => p.state === 'ready' && p.restarts === 0)).toBe(true);
    const [w0, w1] = [worker('worker-0'), worker('worker-1')];
    expect(w0.url).toBe(`http://127.0.0.1:${cluster.config.worker.port}`);
    expect(w1.url).not.toBe(w0.url);
    expect(w1.pid).not.toBe(w0.pid);
    expect(await readyz(w1.url)).toBe(200);
    expect(readFileSync(join(logDir, 'worker-1.log'), 'utf8')).toContain(`--worker.port=${new URL(w1.url).port}`);
    expect(existsSync(join(logDir, 'worker-0.log'))).toBe(true);
    // `services` keeps the kind as the name; both workers are in it.
    expect(cluster.services.filter((s) => s.name === 'worker').map((s) => s.process)).toEqual(['worker-0', 'worker-1']);

    await eventually(async () => (await routedInstances(routerUrl())).size === 2, 5_000, 'both workers’ instances registered');
    expect(await completion(cluster.gatewayUrl)).toBe(200);
  });

  it('restarts worker-1 after kill -9: a new pid, ready again, its new instance registered', async () => {
    const before = await routedInstances(routerUrl());
    const oldPid = worker('worker-1').pid;
    expect(cluster.signal('worker-1', 'SIGKILL')).toBe(oldPid);

    await eventually(() => restarts.length === 1, 3_000, 'onRestart');
    expect(restarts[0]).toMatchObject({ name: 'worker-1', service: 'worker', attempt: 1, delayMs: 250, exit: { process: 'worker-1', signal: 'SIGKILL' } });
    await eventually(() => worker('worker-1').state === 'ready', 10_000, 'worker-1 ready again');
    const now = worker('worker-1');
    expect(now.pid).not.toBe(oldPid);
    expect(now.restarts).toBe(1);
    expect(await readyz(now.url)).toBe(200);
    await eventually(async () => [...(await routedInstances(routerUrl()))].some((id) => !before.has(id)), 5_000, 'the new worker-1 instance registered');
    expect(readFileSync(join(logDir, 'worker-1.log'), 'utf8')).toContain('worker-1 exited (signal SIGKILL); restarting in 250 ms (attempt 1)');
    expect(worker('worker-0').restarts).toBe(0);
  });

  it('after restartNats(1000) every service is ready again within seconds, and requests flow', async () => {
    const url = cluster.natsUrl;
    const restarted = cluster.restartNats(1_000);
    // While NATS is down the services say so on /readyz.
    await eventually(async () => (await readyz(routerUrl())) === 503, 1_000, 'the router not ready while NATS is down');
    await restarted;
    const back = Date.now();
    expect(cluster.natsUrl).toBe(url);
    await eventually(
      async () => (await Promise.all(cluster.processes().map((p) => readyz(p.url)))).every((status) => status === 200),
      5_000,
      'every service ready after NATS came back',
    );
    expect(Date.now() - back).toBeLessThan(5_000);
    expect(await completion(cluster.gatewayUrl)).toBe(200);
    // A reconnect is no crash: nothing was restarted for it.
    expect(restarts).toHaveLength(1);
  });
});
