import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per service process, with the standard process and Node.js metrics and
 * the `service` label on everything, so several services scraped into one Prometheus stay apart.
 */
export function createMetricsRegistry(service: string, instanceId: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service, instance_id: instanceId });
  collectDefaultMetrics({ register: registry });
  return registry;
}
