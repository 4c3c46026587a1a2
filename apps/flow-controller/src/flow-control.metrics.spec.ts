import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '@sluice/config';
import { MetricsPage, Registry } from '@sluice/telemetry';
import { createFlowControlMetrics, type FlowRequest } from './flow-control.metrics.js';

function flowControl(maxFlowSeries: number) {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'flow-controller', instance_id: 'flow-controller-0123456789ab' });
  const metrics = createFlowControlMetrics(registry, 'sluice', { queuedByModel: () => new Map(), saturation: () => 0, trackedFlows: () => 0 }, maxFlowSeries);
  return { metrics, page: () => new MetricsPage(registry).render() };
}

const request = (fairnessId: string, priority = 0): FlowRequest => ({ fairnessId, priority, model: 'qwen3-14b', bodyBytes: 100 });

/** A request queued, then dispatched. */
function pass(metrics: ReturnType<typeof flowControl>['metrics'], r: FlowRequest): void {
  metrics.arrived(r, 'enqueued', 0.0001);
  metrics.left(r, 'dispatched', 0.01);
}

const fairnessIdsOf = (page: string) => new Set([...page.matchAll(/^llm_d_epp_flow_control_queue_size\{[^}]*fairness_id="([^"]*)"/gm)].map((m) => m[1]));

describe('flow-control metrics', () => {
  it('give series of their own to the first flows in the budget and write the rest as other', async () => {
    const { metrics, page } = flowControl(2);
    for (const tenant of ['a', 'b', 'c', 'd']) pass(metrics, request(tenant));
    metrics.arrived(request('c'), 'enqueued', 0.0001);
    metrics.arrived(request('d'), 'enqueued', 0.0001);
    const text = await page();
    expect(fairnessIdsOf(text)).toEqual(new Set(['a', 'b', 'other']));
    // The overflow's queue holds what its flows hold together.
    expect(text).toMatch(/^llm_d_epp_flow_control_queue_size\{[^}]*fairness_id="other"[^}]*\} 2$/m);
    expect(text).toMatch(/^sluice_metrics_tenant_series\{[^}]*\} 2$/m);
  });

  it('a forgotten flow takes its series with it and frees its slot; one that shared the overflow leaves it', async () => {
    const { metrics, page } = flowControl(1);
    pass(metrics, request('a'));
    metrics.arrived(request('b'), 'enqueued', 0.0001);
    metrics.forgetFlow({ fairnessId: 'a', priority: 0 });
    let text = await page();
    expect(text).not.toContain('fairness_id="a"');
    expect(text).toMatch(/^llm_d_epp_flow_control_queue_size\{[^}]*fairness_id="other"[^}]*\} 1$/m);
    // b stays in the overflow while it is tracked, so its request leaves from where it was counted.
    metrics.left(request('b'), 'dispatched', 0.01);
    metrics.forgetFlow({ fairnessId: 'b', priority: 0 });
    pass(metrics, request('c'));
    text = await page();
    // The last flow sharing the overflow took its series with it.
    expect(fairnessIdsOf(text)).toEqual(new Set(['c']));
    expect(text).not.toMatch(/^\w+\{[^}]*fairness_id="other"/m);
  });

  it('the overflow series stay while any flow shares them', async () => {
    const { metrics, page } = flowControl(0);
    pass(metrics, request('a'));
    pass(metrics, request('b'));
    metrics.forgetFlow({ fairnessId: 'a', priority: 0 });
    expect(fairnessIdsOf(await page())).toEqual(new Set(['other']));
    metrics.forgetFlow({ fairnessId: 'b', priority: 0 });
    metrics.forgetFlow({ fairnessId: 'b', priority: 0 });
    expect(await page()).not.toMatch(/^\w+\{[^}]*fairness_id="other"/m);
    pass(metrics, request('c'));
    expect(fairnessIdsOf(await page())).toEqual(new Set(['other']));
  });

  it('bound the overflow by priority too: a wire of any integers gives at most 16 priorities and other', async () => {
    const { metrics, page } = flowControl(0);
    for (let p = 0; p < 100; p++) pass(metrics, request('t', p * 7919));
    const priorities = new Set([...(await page()).matchAll(/^llm_d_epp_flow_control_queue_size\{[^}]*priority="([^"]*)"/gm)].map((m) => m[1]));
    expect(priorities.size).toBe(17);
    expect(priorities.has('other')).toBe(true);
  });

  it('keep the page under 2 MB at the default budget with maxFlows flows of every outcome', async () => {
    const { metrics, page } = flowControl(ConfigSchema.parse({}).metrics.maxTenantSeries);
    const { maxFlows } = ConfigSchema.parse({}).flowController;
    for (let i = 0; i < maxFlows; i++) {
      for (const priority of [100, 10, 0, -10, -100]) {
        const r = request(`tenant-${i}`, priority);
        pass(metrics, r);
        metrics.arrived(r, 'enqueued', 0.0001);
        metrics.left(r, 'ttl_expired', 1);
        metrics.arrived(r, 'enqueued', 0.0001);
        metrics.left(r, 'client_disconnected', 1);
      }
    }
    expect(Buffer.byteLength(await page())).toBeLessThan(2 * 1024 * 1024);
  });
});
