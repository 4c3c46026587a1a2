import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LeanCounter, LeanGauge, LeanHistogram } from './lean-metrics.js';
import { MetricsPage } from './metrics-page.js';
import { openMetricsProblems } from './openmetrics-check.js';

const TRACE_A = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_B = '00f067aa0ba902b7a3ce929d0e0e4736';
const TRACE_C = 'a3ce929d0e0e47364bf92f3577b34da6';

/** A wall clock the test moves: exemplar timestamps are what it says. */
function fakeClock(startMs: number) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => void (nowMs += ms) };
}

function registryWithDefaults(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'sluice-test', instance_id: 'test-1' });
  return registry;
}

describe('the OpenMetrics page', () => {
  it('keeps the latest exemplar of each bucket, stamped by the clock, on the bucket the value falls in', async () => {
    const registry = registryWithDefaults();
    const clock = fakeClock(1_764_400_000_000);
    const h = new LeanHistogram({ name: 'x_seconds', help: 'x', labelNames: ['model'], buckets: [0.1, 1, 10], registers: [registry], now: clock.now });
    const m = h.labels({ model: 'm' });
    m.observe(0.05, { trace_id: TRACE_A });
    clock.advance(123);
    m.observe(0.07, { trace_id: TRACE_B }); // same bucket: replaces A
    m.observe(0.5); // no exemplar: the le=1 bucket has none
    clock.advance(1);
    m.observe(99, { trace_id: TRACE_C }); // above every bound: +Inf's
    const page = await new MetricsPage(registry).render('openmetrics');
    expect(page).toBe(
      [
        '# HELP x_seconds x',
        '# TYPE x_seconds histogram',
        `x_seconds_bucket{le="0.1",service="sluice-test",instance_id="test-1",model="m"} 2 # {trace_id="${TRACE_B}"} 0.07 1764400000.123`,
        'x_seconds_bucket{le="1.0",service="sluice-test",instance_id="test-1",model="m"} 3',
        'x_seconds_bucket{le="10.0",service="sluice-test",instance_id="test-1",model="m"} 3',
        `x_seconds_bucket{le="+Inf",service="sluice-test",instance_id="test-1",model="m"} 4 # {trace_id="${TRACE_C}"} 99 1764400000.124`,
        'x_seconds_sum{service="sluice-test",instance_id="test-1",model="m"} 99.62',
        'x_seconds_count{service="sluice-test",instance_id="test-1",model="m"} 4',
        '# EOF',
        '',
      ].join('\n'),
    );
    expect(openMetricsProblems(page)).toEqual([]);
  });

  it('leaves the 0.0.4 page byte for byte what prom-client writes, exemplars or not', async () => {
    const registry = registryWithDefaults();
    const h = new LeanHistogram({ name: 'x_seconds', help: 'x', labelNames: ['model'], buckets: [0.1, 1], registers: [registry] });
    h.observe({ model: 'm' }, 0.05, { trace_id: TRACE_A });
    h.observe({ model: 'm' }, 5, { trace_id: TRACE_B });
    const text = await new MetricsPage(registry).render();
    expect(text).toBe(await registry.metrics());
    expect(text).not.toContain('trace_id');
    expect(text).not.toContain('# EOF');
  });

  it('writes every family, lean and prom-client, as the spec reads it, and each format from its own cache', async () => {
    const registry = registryWithDefaults();
    collectDefaultMetrics({ register: registry });
    new Counter({ name: 'pc_things_total', help: 'prom-client "counter"', labelNames: ['k'], registers: [registry] }).inc({ k: 'a\nb"c\\' }, 2);
    new Gauge({ name: 'pc_level', help: 'gauge', registers: [registry] }).set(NaN);
    new Histogram({ name: 'pc_seconds', help: 'h', labelNames: ['k'], buckets: [0.005, 1, 1e6], registers: [registry] }).observe({ k: 'a' }, 0.5);
    new Summary({ name: 'pc_size', help: 's', percentiles: [0.5, 0.99], registers: [registry] }).observe(3);
    const leanCounter = new LeanCounter({ name: 'lean_requests_total', help: 'with a "quote" and a \\ backslash', labelNames: ['outcome'], registers: [registry] });
    leanCounter.inc({ outcome: 'ok' });
    new LeanCounter({ name: 'lean_untotalled', help: 'a counter named without _total', registers: [registry] }).inc();
    new LeanGauge({ name: 'lean_in_flight', help: 'g', registers: [registry] }).set({}, Infinity);
    const h = new LeanHistogram({ name: 'lean_seconds', help: 'h', labelNames: ['outcome'], buckets: [0.005, 0.5, 60], registers: [registry] });
    h.observe({ outcome: 'ok' }, 0.3, { trace_id: TRACE_A });

    const page = new MetricsPage(registry);
    const open = await page.render('openmetrics');
    expect(openMetricsProblems(open)).toEqual([]);
    expect(open).toMatch(/^# TYPE pc_things counter\npc_things_total\{k="a\\nb\\"c\\\\",service="sluice-test",instance_id="test-1"\} 2$/m);
    expect(open).toMatch(/^# HELP pc_things prom-client \\"counter\\"$/m);
    expect(open).toMatch(/^# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total\{/m);
    expect(open).toMatch(/^pc_level\{[^}]*\} NaN$/m);
    expect(open).toMatch(/^pc_seconds_bucket\{le="1e\+06",[^}]*\} 1$/m);
    expect(open).toMatch(/^pc_size\{quantile="0.5",[^}]*\} 3$/m);
    expect(open).toMatch(/^# HELP lean_requests with a \\"quote\\" and a \\\\ backslash\n# TYPE lean_requests counter\nlean_requests_total\{outcome="ok",/m);
    expect(open).toMatch(/^# TYPE lean_untotalled counter\nlean_untotalled_total\{[^}]*\} 1$/m);
    expect(open).toMatch(/^lean_in_flight\{[^}]*\} \+Inf$/m);
    expect(open).toMatch(new RegExp(`^lean_seconds_bucket\\{le="0.5",[^}]*\\} 1 # \\{trace_id="${TRACE_A}"\\} 0.3 \\d+(\\.\\d+)?$`, 'm'));
    expect(open.endsWith('\n# EOF\n')).toBe(true);

    // Neither format's cached series lines leak into the other; a change shows in both.
    // (Not compared with prom-client's page whole: the default metrics move between two reads.)
    const text = await page.render();
    expect(text).toMatch(/^# TYPE lean_requests_total counter\nlean_requests_total\{outcome="ok",[^}]*\} 1$/m);
    expect(text).not.toContain('trace_id');
    leanCounter.inc({ outcome: 'ok' });
    expect(await page.render('openmetrics')).toMatch(/^lean_requests_total\{outcome="ok",[^}]*\} 2$/m);
    expect(await page.render()).toMatch(/^lean_requests_total\{outcome="ok",[^}]*\} 2$/m);
    // prom-client's own OpenMetrics output renames counters in place; this page must not have.
    expect(await page.render()).toMatch(/^# TYPE pc_things_total counter$/m);
  });

  it('writes no exemplar whose labels are over the spec’s 128 code points, and none for NaN', async () => {
    const registry = registryWithDefaults();
    const h = new LeanHistogram({ name: 'x_seconds', help: 'x', buckets: [1], registers: [registry] });
    h.observe({}, 0.5, { trace_id: 'f'.repeat(121) });
    h.observe({}, NaN, { trace_id: TRACE_A });
    const open = await new MetricsPage(registry).render('openmetrics');
    expect(open).not.toContain('trace_id');
    expect(open).toContain('x_seconds_bucket{le="1.0",service="sluice-test",instance_id="test-1"} 2');
  });

  it('an empty registry is just the end of the page', async () => {
    expect(await new MetricsPage(new Registry()).render('openmetrics')).toBe('# EOF\n');
  });
});

describe('openMetricsProblems', () => {
  const valid = ['# HELP a_seconds a', '# TYPE a_seconds histogram', 'a_seconds_bucket{le="1.0"} 1 # {trace_id="x"} 0.5 1', 'a_seconds_bucket{le="+Inf"} 1', 'a_seconds_sum 0.5', 'a_seconds_count 1', '# TYPE b counter', 'b_total 1', '# EOF', ''].join('\n');

  it('passes a valid page', () => {
    expect(openMetricsProblems(valid)).toEqual([]);
  });

  it.each([
    ['no # EOF', valid.replace('# EOF\n', '')],
    ['a blank line between families', valid.replace('# TYPE b', '\n# TYPE b')],
    ['a counter family named with _total', valid.replace('# TYPE b counter\nb_total', '# TYPE b_total counter\nb_total')],
    ['a counter sample without _total', valid.replace('b_total 1', 'b 1')],
    ['a quote unescaped in HELP', valid.replace('# HELP a_seconds a', '# HELP a_seconds "a"')],
    ['a non-canonical le', valid.replace('le="1.0"', 'le="1"')],
    ['an exemplar outside its bucket', valid.replace('0.5 1\n', '2 1\n')],
    ['an exemplar on a _sum', valid.replace('a_seconds_sum 0.5', 'a_seconds_sum 0.5 # {trace_id="x"} 0.5')],
    ['an exemplar over 128 code points', valid.replace('trace_id="x"', `trace_id="${'x'.repeat(121)}"`)],
    ['a count that is not the +Inf bucket', valid.replace('a_seconds_count 1', 'a_seconds_count 2')],
    ['a series without +Inf', valid.replace('a_seconds_bucket{le="+Inf"} 1\n', '')],
    ['interleaved families', `${valid.replace('# EOF\n', '')}# TYPE a_seconds histogram\n# EOF\n`],
  ])('finds %s', (_, page) => {
    expect(openMetricsProblems(page)).not.toEqual([]);
  });
});
