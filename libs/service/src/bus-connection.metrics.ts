import type { Bus } from '@sluice/bus';
import { Counter, Gauge, type Registry } from '@sluice/telemetry';

const CONNECTED = 'sluice_bus_connected';
const DISCONNECTIONS = 'sluice_bus_disconnections_total';

/**
 * Whether this process's NATS connection is up, for an alert on a service cut off from the bus:
 * its HTTP side (and so Prometheus's `up`) stays healthy while it hears and sends nothing.
 * `sluice_bus_connected` is read at scrape time (1 connected, 0 from a disconnect until the
 * reconnect); `sluice_bus_disconnections_total` counts the losses, so an outage shorter than a
 * scrape interval still shows as an increase.
 */
export function registerBusConnectionMetrics(registry: Registry, bus: Pick<Bus, 'isConnected' | 'onConnection'>): void {
  if (registry.getSingleMetric(CONNECTED)) return;
  const connected: Gauge = new Gauge({
    name: CONNECTED,
    help: 'Whether this process is connected to NATS: 1 connected, 0 from a disconnect until the client reconnects.',
    registers: [registry],
    collect() {
      connected.set(bus.isConnected ? 1 : 0);
    },
  });
  const disconnections = new Counter({
    name: DISCONNECTIONS,
    help: 'Times this process lost its NATS connection.',
    registers: [registry],
  });
  bus.onConnection((event) => {
    if (event === 'disconnected') disconnections.inc();
  });
}
