import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '@sluice/config';
import { MetricsPage, Registry } from '@sluice/telemetry';
import { createGatewayMetrics } from './gateway.metrics.js';
import type { ObjectiveSeries } from './gateway.objective-metrics.js';

/** The default of metrics.maxTenantSeries (libs/config), whose page bound docs/metrics.md states. */
const DEFAULT_MAX_TENANT_SERIES = ConfigSchema.parse({}).metrics.maxTenantSeries;
const SLO_PRIORITIES = [100, 10, 0, -10, -100];

function gateway(maxTenantSeries: number, tenantSeriesIdleMs = 300_000) {
  const clock = { ms: 0 };
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'gateway', instance_id: 'gateway-0123456789ab' });
  const { objective } = createGatewayMetrics(registry, { maxTenantSeries, tenantSeriesIdleMs, now: () => clock.ms });
  return { objective, clock, page: () => new MetricsPage(registry).render() };
}

/** What a completed request writes, from taken to its terminal outcome. */
function complete(series: ObjectiveSeries, streaming: boolean): void {
  series.running.inc();
  series.requestBytes.observe(180);
  series.inputTokens.observe(12);
  if (streaming) series.itl.observe(0.001);
  series.ttft.observe(0.01);
  series.total.inc();
  series.running.dec();
  series.duration.observe(0.02);
  series.responseBytes.observe(300);
  series.outputTokens.observe(1);
  series.ntpot.observe(0.02);
}

const fairnessIdsOf = (page: string) => new Set([...page.matchAll(/^llm_d_epp_request_total\{[^}]*fairness_id="([^"]*)"/gm)].map((m) => m[1]));

describe('objective series', () => {
  it('are bound once per model, tenant, priority and streaming; tenants past the budget read other', async () => {
    const { objective, page } = gateway(3);
    expect(objective.seriesOf('m', 'tenant-0', 3, false)).toBe(objective.seriesOf('m', 'tenant-0', 3, false));
    for (let i = 0; i < 10; i++) objective.seriesOf('m', `tenant-${i}`, 3, false).total.inc();
    const text = await page();
    expect(fairnessIdsOf(text)).toEqual(new Set(['tenant-0', 'tenant-1', 'tenant-2', 'other']));
    expect(text).toMatch(/^llm_d_epp_request_total\{[^}]*fairness_id="other",priority="3"[^}]*\} 7$/m);
    expect(text).toMatch(/^inference_objective_request_total\{model_name="m",target_model_name="m",priority="3"[^}]*\} 10$/m);
    expect(text).toMatch(/^sluice_metrics_tenant_series\{[^}]*\} 3$/m);
  });

  it('keep the page under 2 MB at the default budget, whatever the number of tenants × classes × streaming', async () => {
    const { objective, page } = gateway(DEFAULT_MAX_TENANT_SERIES);
    for (let i = 0; i < 20_000; i++) for (const priority of SLO_PRIORITIES) for (const streaming of [false, true]) complete(objective.seriesOf('qwen3-14b', `tenant-${i}`, priority, streaming), streaming);
    const text = await page();
    expect(Buffer.byteLength(text)).toBeLessThan(2 * 1024 * 1024);
    // Tenants are fairness id × priority: the first ones by name, every later one as other.
    expect(fairnessIdsOf(text).size).toBe(Math.ceil(DEFAULT_MAX_TENANT_SERIES / SLO_PRIORITIES.length) + 1);
  });

  it('an idle tenant leaves the page after tenantSeriesIdleMs, making room; the deprecated per-model series stay', async () => {
    const { objective, clock, page } = gateway(1, 1_000);
    complete(objective.seriesOf('m', 'early', 0, true), true);
    clock.ms = 500;
    complete(objective.seriesOf('m', 'late', 0, true), true);
    expect(fairnessIdsOf(await page())).toEqual(new Set(['early', 'other']));
    clock.ms = 1_500;
    const text = await page();
    expect(text).not.toContain('fairness_id="early"');
    expect(text).toMatch(/^inference_objective_request_total\{[^}]*\} 2$/m);
    expect(text).toMatch(/^sluice_metrics_tenant_series\{[^}]*\} 0$/m);
    complete(objective.seriesOf('m', 'late', 0, true), true);
    expect(fairnessIdsOf(await page())).toEqual(new Set(['late', 'other']));
  });

  it('a tenant with a request in flight keeps its series, however long the request takes', async () => {
    const { objective, clock, page } = gateway(1, 1_000);
    const held = objective.seriesOf('m', 'slow', 0, true);
    held.running.inc();
    clock.ms = 60_000;
    expect(objective.seriesOf('m', 'newcomer', 0, true)).not.toBe(held);
    // Both bound their request count on arrival: the newcomer's under other.
    expect(fairnessIdsOf(await page())).toEqual(new Set(['slow', 'other']));
    expect(await page()).toMatch(/^llm_d_epp_request_running\{[^}]*fairness_id="slow"[^}]*\} 1$/m);
    held.total.inc();
    held.running.dec();
    clock.ms = 61_000;
    expect(await page()).not.toContain('fairness_id="slow"');
  });

  it('a tenant that calls itself other is the overflow, and never takes a slot', async () => {
    const { objective, clock, page } = gateway(1, 1_000);
    objective.seriesOf('m', 'other', 0, false).total.inc();
    objective.seriesOf('m', 'a', 0, false).total.inc();
    clock.ms = 10_000;
    const text = await page();
    expect(text).toMatch(/^llm_d_epp_request_total\{[^}]*fairness_id="other"[^}]*\} 1$/m);
    expect(text).not.toContain('fairness_id="a"');
  });

  it('put on the page only what a request used: one refused at the door adds its count and error, no empty histograms', async () => {
    const { objective, page } = gateway(64);
    const refused = objective.seriesOf('', '', undefined, false);
    refused.total.inc();
    refused.error('BadRequest').inc();
    const text = await page();
    expect(text).toMatch(/^llm_d_epp_request_error_total\{[^}]*error_code="BadRequest"[^}]*\} 1$/m);
    expect(text).not.toMatch(/^llm_d_epp_request_duration_seconds_count/m);
    expect(text).not.toMatch(/^llm_d_epp_request_running\{/m);
    expect(text).not.toMatch(/^llm_d_epp_request_streaming_itl_seconds_count/m);
  });
});
