import { Bus } from '@sluice/bus';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { Registry } from '@sluice/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBusConnectionMetrics } from './bus-connection.metrics.js';

/**
 * The bus connection metrics against a real nats-server stopped and started again on its port:
 * what the BusDisconnected alert (infra/prometheus/rules) reads.
 */
let nats: NatsServerHandle;
let bus: Bus;
const registry = new Registry();

beforeAll(async () => {
  nats = await startNats();
  bus = await Bus.connect({ url: nats.url, name: 'connection-metrics', ackTimeoutMs: 1_000, answerFaultControl: false });
  registerBusConnectionMetrics(registry, bus);
});

afterAll(async () => {
  await bus?.drain();
  await nats?.stop();
});

const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('sluice_bus_connected and sluice_bus_disconnections_total', () => {
  it('read 1 and 0 while connected, 0 and 1 while the server is away, 1 and 1 once it is back', async () => {
    expect(await value('sluice_bus_connected')).toBe(1);
    expect(await value('sluice_bus_disconnections_total')).toBe(0);

    const port = Number(new URL(nats.url).port);
    await nats.stop();
    await until('the disconnect', async () => (await value('sluice_bus_connected')) === 0);
    expect(await value('sluice_bus_disconnections_total')).toBe(1);

    nats = await startNats({ port });
    await until('the reconnect', async () => (await value('sluice_bus_connected')) === 1);
    expect(await value('sluice_bus_disconnections_total')).toBe(1);
  });
});
