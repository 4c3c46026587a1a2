import type { Registry } from '@sluice/telemetry';
import { createRouterRequestSeries, type RouterRequestSeries } from './router.request-series.js';
import { createRouterScrapeGauges, type PoolReadings } from './router.scrape-gauges.js';

export { meanAndStdDev, type PoolReadings } from './router.scrape-gauges.js';

/** What the router writes as it decides; the rest of its page is read at scrape time. */
export type RouterMetrics = RouterRequestSeries;

/**
 * The router's metrics (docs/metrics.md, "router"), of two kinds in two files
 * (libs/telemetry/README.md, "Lean series or prom-client"): what each routing decision writes
 * (`router.request-series.ts`), and the pool, in-flight and build gauges a scrape computes from
 * `readings` (`router.scrape-gauges.ts`).
 */
export function createRouterMetrics(registry: Registry, pool: string, readings: PoolReadings): RouterMetrics {
  createRouterScrapeGauges(registry, pool, readings);
  return createRouterRequestSeries(registry);
}
