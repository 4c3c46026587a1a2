import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LeanCounter, LeanGauge, LeanHistogram } from './lean-metrics.js';
import { MetricsPage } from './metrics-page.js';

/** A registry like a service's: default labels, the process metrics, lean and prom-client families. */
function serviceRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'sluice-test', instance_id: 'test-1' });
  collectDefaultMetrics({ register: registry });
  const lean = new LeanHistogram({ name: 'x_seconds', help: 'x "quoted" \\ help', labelNames: ['tenant'], buckets: [0.1, 1], registers: [registry] });
  for (let i = 0; i < 50; i++) lean.observe({ tenant: `t-${i}\n"odd"` }, i / 10);
  new LeanCounter({ name: 'y_total', help: 'y', registers: [registry] }).inc();
  new Counter({ name: 'z_total', help: 'z', labelNames: ['k'], registers: [registry] }).inc({ k: 'a' }, 3);
  new Histogram({ name: 'h_seconds', help: 'h', registers: [registry] }).observe(0.3);
  new Gauge({ name: 'empty_gauge', help: 'no series', labelNames: ['k'], registers: [registry] });
  const scrapeGauge: Gauge = new Gauge({
    name: 'computed',
    help: 'set at collect',
    registers: [registry],
    collect() {
      scrapeGauge.set(42);
    },
  });
  return registry;
}

/** Process metrics (CPU, memory, event-loop lag) move between two renders: compare everything else. */
const stable = (page: string) =>
  page
    .split('\n')
    .filter((line) => !/^(process_|nodejs_)/.test(line))
    .join('\n');

describe('MetricsPage', () => {
  it('writes what prom-client writes', async () => {
    const registry = serviceRegistry();
    const ours = await new MetricsPage(registry).render();
    const theirs = await registry.metrics();
    expect(stable(ours)).toBe(stable(theirs));
    // Same families, in the same order, the same separators and trailer.
    expect(ours.match(/^# TYPE .*/gm)).toEqual(theirs.match(/^# TYPE .*/gm));
    expect(ours.endsWith('\n') && !ours.endsWith('\n\n')).toBe(true);
  });

  it('writes an empty registry as prom-client does', async () => {
    const registry = new Registry();
    expect(await new MetricsPage(registry).render()).toBe(await registry.metrics());
  });

  it('lets other work run between families', async () => {
    const registry = serviceRegistry();
    const order: string[] = [];
    const render = new MetricsPage(registry).render().then(() => order.push('page'));
    setImmediate(() => order.push('request'));
    await render;
    expect(order).toEqual(['request', 'page']);
  });

  it('concurrent scrapes share one render; a later scrape renders afresh', async () => {
    const registry = new Registry();
    let collected = 0;
    const g: Gauge = new Gauge({
      name: 'collected',
      help: 'how many renders collected',
      registers: [registry],
      collect() {
        collected += 1;
        g.set(collected);
      },
    });
    const page = new MetricsPage(registry);
    const pages = await Promise.all(Array.from({ length: 8 }, () => page.render()));
    expect(collected).toBe(1);
    expect(new Set(pages).size).toBe(1);
    expect(await page.render()).toContain('collected 2');
  });

  it('a scrape that joins a render under way reads it from its first chunk', async () => {
    const registry = serviceRegistry();
    const page = new MetricsPage(registry);
    const early = page.chunks();
    const first = await early.next();
    // The render is under way (it yields after each part): a scrape now joins it.
    const joined = page.render();
    const rest: string[] = [];
    for await (const chunk of early) rest.push(chunk);
    const whole = `${first.value as string}${rest.join('')}`;
    expect(await joined).toBe(whole);
    expect(rest.length).toBeGreaterThan(1);
    expect(stable(whole)).toBe(stable(await registry.metrics()));
  });

  it('a failed render fails its scrapes and the next one tries again', async () => {
    const registry = new Registry();
    let fail = true;
    new Gauge({
      name: 'flaky',
      help: 'collect throws once',
      registers: [registry],
      collect() {
        if (fail) {
          fail = false;
          throw new Error('collect failed');
        }
      },
    });
    const page = new MetricsPage(registry);
    await expect(page.render()).rejects.toThrow('collect failed');
    expect(await page.render()).toContain('# TYPE flaky gauge');
  });
});

describe('MetricsPage with lean families', () => {
  it('writes every kind of lean series byte for byte as prom-client, escaping and default labels included', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'sluice-test', instance_id: 'i-1', model: 'default-model' });
    const odd = 'a\\b\n"c" ✓';
    const h = new LeanHistogram({ name: 'h_seconds', help: `h ${odd}`, labelNames: ['model', 'tenant'], buckets: [0.5, 0.001, 10], registers: [registry] });
    h.observe({ model: 'm', tenant: odd }, 0.2);
    h.observe({ model: 'm', tenant: 't' }, 99);
    h.labels({ model: 'unused', tenant: '' });
    new LeanHistogram({ name: 'bare_seconds', help: 'no labels', buckets: [1], registers: [registry] }).labels().observe(Infinity);
    const c = new LeanCounter({ name: 'c_total', help: 'c', labelNames: ['k', 'model'], registers: [registry] });
    c.inc({ k: odd, model: 'own' }, 2.5);
    c.inc({ k: 7, model: 'x' }, 0);
    new LeanCounter({ name: 'nolabels_total', help: 'n', registers: [registry] }).inc({}, 1e21);
    const g = new LeanGauge({ name: 'g', help: 'g', labelNames: ['k'], registers: [registry] });
    g.set({ k: 'nan' }, NaN);
    g.set({ k: 'neg' }, -Infinity);
    g.set({ k: 'small' }, 1e-7);
    new LeanGauge({ name: 'empty', help: 'no series', labelNames: ['k'], registers: [registry] });
    expect(await new MetricsPage(registry).render()).toBe(await registry.metrics());
    // A page without default labels too (the plain `name value` lines).
    const bare = new Registry();
    new LeanCounter({ name: 'n_total', help: 'n', registers: [bare] }).inc();
    new LeanHistogram({ name: 'b_seconds', help: 'b', buckets: [1], registers: [bare] }).labels().observe(0.5);
    expect(await new MetricsPage(bare).render()).toBe(await bare.metrics());
  });

  it('a removed series leaves the page and a series made again is written afresh', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 's' });
    const c = new LeanCounter({ name: 'c_total', help: 'c', labelNames: ['tenant'], registers: [registry] });
    const page = new MetricsPage(registry);
    c.inc({ tenant: 'a' });
    c.inc({ tenant: 'b' });
    await page.render();
    c.remove({ tenant: 'a' });
    c.inc({ tenant: 'c' }, 3);
    const text = await page.render();
    expect(text).toBe(await registry.metrics());
    expect(text).not.toContain('tenant="a"');
  });
});

describe('MetricsPage with a family of many series', () => {
  it('lets other work run within the family, and writes it whole, with series added meanwhile', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 's' });
    const h = new LeanHistogram({ name: 'many_seconds', help: 'many', labelNames: ['tenant'], buckets: [1], registers: [registry] });
    for (let i = 0; i < 200; i++) h.observe({ tenant: `t-${i}` }, i);
    const render = new MetricsPage(registry).render();
    // Runs at the first yield, after the family's HELP and TYPE and before its series: written too,
    // which it would not be if the family were written in one piece.
    setImmediate(() => h.observe({ tenant: 'late' }, 1));
    const text = await render;
    expect(text).toBe(await registry.metrics());
    expect(text).toContain('tenant="late"');
  });
});
