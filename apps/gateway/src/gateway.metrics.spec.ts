import { describe, expect, it } from 'vitest';
import { Registry } from '@sluice/telemetry';
import { createGatewayMetrics, eppErrorCodeOf, httpHandlerOf } from './gateway.metrics.js';

describe('eppErrorCodeOf', () => {
  it.each([
    ['ok', 200, ''],
    ['invalid_request', 400, 'BadRequest'],
    ['body_too_large', 413, 'BadRequest'],
    ['invalid_api_key', 401, 'Unauthorized'],
    ['flow_capacity', 429, 'ResourceExhausted'],
    ['no_worker', 503, 'ServiceUnavailable'],
    ['timeout', 504, 'ServiceUnavailable'],
    ['internal', 500, 'Internal'],
    ['injected_server_error', 503, 'ModelServerError'],
  ] as const)('%s (%i) → %s', (reason, status, code) => {
    expect(eppErrorCodeOf(reason, status)).toBe(code);
  });
});

describe('httpHandlerOf', () => {
  it('names a route by its path, an unknown path none, and leaves health and metrics out', () => {
    expect(httpHandlerOf('/v1/chat/completions?x=1')).toBe('/v1/chat/completions');
    expect(httpHandlerOf('/V1/Models/')).toBe('/v1/models');
    expect(httpHandlerOf('/tenant-1234/anything')).toBe('none');
    expect(httpHandlerOf('/metrics')).toBeUndefined();
    expect(httpHandlerOf('/healthz')).toBeUndefined();
  });
});

describe('objective series', () => {
  it('are bound once per model, tenant, priority and streaming, and a tenant past 1000 reads other', async () => {
    const registry = new Registry();
    const { objective } = createGatewayMetrics(registry);
    expect(objective.seriesOf('m', 'tenant-0', 3, false)).toBe(objective.seriesOf('m', 'tenant-0', 3, false));
    for (let i = 0; i < 1_500; i++) objective.seriesOf('m', `tenant-${i}`, 3, false).total.inc();
    const page = await registry.metrics();
    const fairnessIds = new Set([...page.matchAll(/^llm_d_epp_request_total\{[^}]*fairness_id="([^"]+)"/gm)].map((m) => m[1]));
    // The first 1000 tenants by name, then every other one as `other`.
    expect(fairnessIds.size).toBe(1001);
    expect(fairnessIds.has('tenant-999')).toBe(true);
    expect(fairnessIds.has('tenant-1000')).toBe(false);
    expect(fairnessIds.has('other')).toBe(true);
    expect(page).toMatch(/^inference_objective_request_total\{model_name="m",target_model_name="m",priority="3"\} 1500$/m);
  });

  it('put on the page only what a request used: one refused at the door adds its count and error, no empty histograms', async () => {
    const registry = new Registry();
    const { objective } = createGatewayMetrics(registry);
    const refused = objective.seriesOf('', '', undefined, false);
    refused.total.inc();
    refused.error('BadRequest').inc();
    const page = await registry.metrics();
    expect(page).toMatch(/^llm_d_epp_request_error_total\{[^}]*error_code="BadRequest"[^}]*\} 1$/m);
    expect(page).not.toMatch(/^llm_d_epp_request_duration_seconds_count/m);
    expect(page).not.toMatch(/^llm_d_epp_request_running\{/m);
    expect(page).not.toMatch(/^llm_d_epp_request_streaming_itl_seconds_count/m);
  });
});
