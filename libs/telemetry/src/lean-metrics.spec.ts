import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LeanCounter, LeanGauge, LeanHistogram } from './lean-metrics.js';
import { MetricsPage } from './metrics-page.js';
import { pythonFloatString } from './python-buckets.js';

/** The page of a registry with the service's default labels, as every sluice registry has. */
async function page(build: (registry: Registry) => void): Promise<string> {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'sluice-test', instance_id: 'test-1' });
  build(registry);
  return registry.metrics();
}

describe('lean metrics write what prom-client writes', () => {
  const values = [0.0005, 0.001, 0.003, 0.2, 7, 99];

  it('histograms: buckets at the bound, above every bound, sums and counts, per series', async () => {
    const options = { name: 'x_seconds', help: 'x', labelNames: ['model', 'outcome'] as const, buckets: [0.001, 0.01, 0.1, 1, 10] };
    const expected = await page((registry) => {
      const h = new Histogram({ ...options, labelNames: [...options.labelNames], registers: [registry] });
      for (const v of values) h.observe({ model: 'm', outcome: 'ok' }, v);
      h.observe({ model: 'm', outcome: 'error' }, 0.05);
    });
    const lean = await page((registry) => {
      const h = new LeanHistogram({ ...options, registers: [registry] });
      const ok = h.labels({ model: 'm', outcome: 'ok' });
      for (const v of values) ok.observe(v);
      h.observe({ model: 'm', outcome: 'error' }, 0.05);
    });
    expect(lean).toBe(expected);
  });

  it('counters and gauges', async () => {
    const expected = await page((registry) => {
      const c = new Counter({ name: 'c_total', help: 'c', labelNames: ['k'], registers: [registry] });
      c.inc({ k: 'a' });
      c.inc({ k: 'a' }, 2);
      c.inc({ k: 'b' }, 0);
      const g = new Gauge({ name: 'g', help: 'g', labelNames: ['k'], registers: [registry] });
      g.set({ k: 'a' }, 5);
      g.labels({ k: 'a' }).dec(2);
      g.labels({ k: 'b' }).inc();
    });
    const lean = await page((registry) => {
      const c = new LeanCounter({ name: 'c_total', help: 'c', labelNames: ['k'], registers: [registry] });
      c.labels({ k: 'a' }).inc();
      c.inc({ k: 'a' }, 2);
      c.labels({ k: 'b' });
      const g = new LeanGauge({ name: 'g', help: 'g', labelNames: ['k'], registers: [registry] });
      g.set({ k: 'a' }, 5);
      g.labels({ k: 'a' }).dec(2);
      g.labels({ k: 'b' }).inc();
    });
    expect(lean).toBe(expected);
  });

  it('hands out one series per label values, drops it on remove, and writes le as asked', async () => {
    const text = await page((registry) => {
      const h = new LeanHistogram({ name: 'vllm:y', help: 'y', labelNames: ['engine'], buckets: [1, 8], formatLe: pythonFloatString, registers: [registry] });
      expect(h.labels({ engine: 0 })).toBe(h.labels({ engine: '0' }));
      h.labels({ engine: '0' }).observe(8);
      h.labels({ engine: '1' }).observe(1);
      h.remove({ engine: '1' });
    });
    expect(text).toContain('vllm:y_bucket{le="1.0",service="sluice-test",instance_id="test-1",engine="0"} 0');
    expect(text).toContain('vllm:y_bucket{le="8.0",service="sluice-test",instance_id="test-1",engine="0"} 1');
    expect(text).not.toContain('engine="1"');
  });

  it('a series is written afresh once it changed, and from its last lines while it did not', async () => {
    const registry = (): Registry => {
      const r = new Registry();
      r.setDefaultLabels({ service: 'sluice-test', instance_id: 'test-1' });
      return r;
    };
    const [theirs, ours] = [registry(), registry()];
    const options = { name: 'x_seconds', help: 'x', labelNames: ['tenant'], buckets: [0.01, 0.1, 1] };
    const h = new Histogram({ ...options, registers: [theirs] });
    const c = new Counter({ name: 'c_total', help: 'c', labelNames: ['tenant'], registers: [theirs] });
    const g = new Gauge({ name: 'g', help: 'g', labelNames: ['tenant'], registers: [theirs] });
    const lh = new LeanHistogram({ ...options, registers: [ours] });
    const lc = new LeanCounter({ name: 'c_total', help: 'c', labelNames: ['tenant'], registers: [ours] });
    const lg = new LeanGauge({ name: 'g', help: 'g', labelNames: ['tenant'], registers: [ours] });
    const page = new MetricsPage(ours);
    const steps: ((tenant: string) => void)[] = [
      (tenant) => (h.observe({ tenant }, 0.05), lh.observe({ tenant }, 0.05)),
      (tenant) => (c.inc({ tenant }, 2), lc.inc({ tenant }, 2)),
      (tenant) => (g.set({ tenant }, 3), lg.set({ tenant }, 3)),
      (tenant) => (g.dec({ tenant }), lg.dec({ tenant })),
      (tenant) => (g.inc({ tenant }), lg.inc({ tenant })),
    ];
    for (let round = 0; round < 6; round++) {
      // Every step on a few tenants, some of them unchanged since the last page.
      for (const [i, step] of steps.entries()) step(`t-${(round + i) % 4}`);
      expect(await page.render()).toBe(await theirs.metrics());
      expect(await page.render(), 'a page with nothing changed since').toBe(await theirs.metrics());
    }
  });

  it('names a label left without a value', () => {
    const c = new LeanCounter({ name: 'z_total', help: 'z', labelNames: ['a', 'b'] });
    expect(() => c.labels({ a: 'x' })).toThrow('z_total: label b has no value');
  });
});
