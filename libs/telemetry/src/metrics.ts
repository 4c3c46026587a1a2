import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * prom-client defaults whose every scrape walks all of the process's handles (`process.
 * _getActiveHandles()`, `process.getActiveResourcesInfo()`): with thousands of open client
 * connections each scrape of the gateway blocked its event loop for milliseconds and allocated an
 * object per connection (CPU profile under overload: with the file-descriptor count,
 * ~11% of the gateway while scraped ten times a second). The handle and resource counts say
 * little that `process_open_fds` does not.
 */
const WALKS_EVERY_HANDLE = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
];

/**
 * One Prometheus registry per service process, with the standard process and Node.js metrics and
 * the `service` label on everything, so several services scraped into one Prometheus stay apart.
 */
export function createMetricsRegistry(service: string, instanceId: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service, instance_id: instanceId });
  collectDefaultMetrics({ register: registry });
  for (const name of WALKS_EVERY_HANDLE) registry.removeSingleMetric(name);
  return registry;
}
