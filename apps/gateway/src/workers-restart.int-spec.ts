import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, postCompletion } from '@sluice/testing';

/**
 * Every worker process killed at once (docs/behaviour.md §6): the router finds no instance to take
 * a request and hands it back; the gateway tries again, with doubling pauses, for the same window
 * as its own handoffs (two heartbeat timeouts), so requests sent while the workers restart are
 * served once they are back, not answered 503 worker_unreachable. The heartbeat timeout is long
 * here so a restart fits in the window on a busy machine.
 */
describe('every worker process killed at once', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      readyTimeoutMs: 90_000,
      configArgs: [...FREE_PORT_ARGS, '--gateway.heartbeatTimeoutMs=8000', '--worker.processes=2', '--worker.instances=1', '--worker.timeScale=4'],
    });
  });
  afterAll(() => cluster?.stop());

  it('serves the requests sent while they restart', async () => {
    expect((await postCompletion(cluster.gatewayUrl, { prompt: 'warm up', max_tokens: 2 })).status).toBe(200);
    const before = cluster.processes().filter((p) => p.name.startsWith('worker-'));
    for (const worker of before) cluster.signal(worker.name, 'SIGKILL');
    const answers: Promise<number>[] = [];
    for (let i = 0; i < 10; i++) {
      answers.push(postCompletion(cluster.gatewayUrl, { prompt: `sent while the workers restart ${i}`, max_tokens: 4 }).then((res) => res.status));
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 10 }, () => 200));
    for (const worker of before) expect(cluster.processes().find((p) => p.name === worker.name)!.pid).not.toBe(worker.pid);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="worker_unreachable"')).toBe(0);
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
  });
});
