import { z } from 'zod';

/**
 * `metrics`: how much of a metrics page clients can make. Every service that labels series by
 * tenant (the gateway's Endpoint Picker request metrics, the flow controller's per-flow ones)
 * gives series of their own to at most `maxTenantSeries` tenants (fairness id × priority) and
 * writes the rest as `fairness_id="other"` (docs/metrics.md, "Bounded pages").
 */
export const MetricsSchema = z.strictObject({
  /**
   * Tenants with series of their own on each page. A tenant costs ~42 kB of the gateway's page per model (both
   * streaming modes), so the default keeps a page under 2 MB at any number of tenants; 0 writes every tenant as `other`.
   */
  maxTenantSeries: z.number().int().nonnegative().max(10_000).default(32),
  /**
   * A tenant with nothing in flight for this long leaves the gateway's page, making room (the flow
   * controller's leave with their flow, at flowController.flowGCTimeout).
   */
  tenantSeriesIdleMs: z.number().int().min(1_000).default(300_000),
});
