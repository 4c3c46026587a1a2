import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { canConnect, natsAnswers, parseNatsServers, findNatsServer, startNats } from './index.js';

const binary = findNatsServer() !== undefined;
const required = process.env.CI === 'true';

describe.runIf(binary || required)('startNats with a local nats-server', () => {
  it('starts it on a free port, answers, and closes the port on stop', async () => {
    if (!binary) throw new Error('CI=true but nats-server is not installed (apt-get install nats-server)');
    const nats = await startNats();
    expect(nats.kind).toBe('process');
    expect(nats.pid).toBeGreaterThan(0);
    const [server] = parseNatsServers(nats.url);
    expect(server?.host).toBe('127.0.0.1');
    expect(await natsAnswers(server!.host, server!.port)).toBe(true);

    await nats.stop();
    await nats.stop(); // idempotent
    expect(await canConnect(server!.host, server!.port, 500)).toBe(false);
    expect(() => process.kill(nats.pid!, 0)).toThrow();
  });

  it('opens a monitoring endpoint on a single server only when asked, and its /varz counts the messages', async () => {
    const closed = await startNats();
    const monitored = await startNats({ monitor: true });
    try {
      expect(closed.monitorUrl).toBeUndefined();
      expect(monitored.monitorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const varz = async (): Promise<{ in_msgs: number }> => (await fetch(`${monitored.monitorUrl}/varz`)).json() as Promise<{ in_msgs: number }>;
      const before = (await varz()).in_msgs;
      const nc = await connect({ servers: monitored.url });
      for (let i = 0; i < 3; i++) nc.publish('monitor.check', 'x');
      await nc.flush();
      await nc.close();
      expect((await varz()).in_msgs - before).toBe(3);
    } finally {
      await Promise.all([closed.stop(), monitored.stop()]);
    }
  });

  it('uses a given URL without starting anything, and leaves that server alone on stop', async () => {
    const own = await startNats();
    try {
      const external = await startNats({ url: own.url });
      expect(external).toMatchObject({ kind: 'external', url: own.url });
      expect(external.pid).toBeUndefined();
      await external.stop();
      const [server] = parseNatsServers(own.url);
      expect(await natsAnswers(server!.host, server!.port)).toBe(true);
    } finally {
      await own.stop();
    }
  });

  it('starts a stopped node of a local cluster again on its address, and the others route to it again', async () => {
    const cluster = await startNats({ clusterSize: 3 });
    const routes = async (i: number): Promise<number> => ((await (await fetch(`${cluster.nodes![i]!.monitorUrl}/varz`)).json()) as { routes: number }).routes;
    try {
      const [, lost] = parseNatsServers(cluster.url);
      await expect(cluster.startNode!(1)).rejects.toThrow(/NATS node 1 .* is running: stop it first/);
      await cluster.nodes![1]!.stop();
      expect(await canConnect(lost!.host, lost!.port, 500)).toBe(false);
      await eventuallyTrue(async () => (await routes(0)) === 1 && (await routes(2)) === 1);

      await cluster.startNode!(1);
      expect(cluster.nodes![1]!.url).toBe(`nats://127.0.0.1:${lost!.port}`);
      expect(await natsAnswers(lost!.host, lost!.port)).toBe(true);
      // The explicit routes are retried, so the mesh closes again without anyone's help.
      await eventuallyTrue(async () => (await routes(0)) === 2 && (await routes(1)) === 2 && (await routes(2)) === 2);
    } finally {
      await cluster.stop();
    }
  });
});

/** Polls `check` every 100 ms until it holds; fails after 10 s. */
async function eventuallyTrue(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
