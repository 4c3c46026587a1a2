import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, natsServerList } from './bus.js';

/**
 * A bus given a NATS cluster's URLs (`nats.url` as a comma-separated list), against three real
 * routed nats-servers: each entry is a server it may start at, so the clients spread over the
 * nodes and one connects while any node of the list is down.
 */
let cluster: NatsServerHandle;

beforeAll(async () => {
  cluster = await startNats({ clusterSize: 3 });
});

afterAll(async () => {
  await cluster?.stop();
});

const connectBus = (name: string) => Bus.connect({ url: cluster.url, name, ackTimeoutMs: 1_000, waitForServer: false, answerFaultControl: false });

describe('Bus on a NATS cluster', () => {
  it('reads the URL list as one server per entry', () => {
    expect(natsServerList(' nats://a:4222, nats://b:4222,,nats://c:4222 ')).toEqual(['nats://a:4222', 'nats://b:4222', 'nats://c:4222']);
    expect(natsServerList('nats://a:4222')).toEqual(['nats://a:4222']);
  });

  it('starts at a random node of the list, not always at the same one', async () => {
    const buses = await Promise.all(Array.from({ length: 12 }, (_, i) => connectBus(`spread-${i}`)));
    try {
      // All twelve on one node by chance: 3 × (1/3)^12, about 1 in 180,000.
      const nodes = new Set(buses.map((b) => b.connection.info?.server_name));
      expect(nodes.size).toBeGreaterThan(1);
    } finally {
      await Promise.all(buses.map((b) => b.drain()));
    }
  });

  it('connects while the last node of the list is down (a client started after a node was lost)', async () => {
    await cluster.nodes![2]!.stop();
    // No waiting for a server: the first connection must find a live node in the list at once.
    const buses = await Promise.all(Array.from({ length: 4 }, (_, i) => connectBus(`after-loss-${i}`)));
    try {
      for (const bus of buses) expect(['nats-0', 'nats-1']).toContain(bus.connection.info?.server_name);
    } finally {
      await Promise.all(buses.map((b) => b.drain()));
    }
  });
});
