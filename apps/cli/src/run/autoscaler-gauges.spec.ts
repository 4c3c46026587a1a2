import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOSCALER_SERIES, AutoscalerGaugeSampler, autoscalerUrlFromConfig, readGaugeSample } from './autoscaler-gauges.js';

/** A /metrics page of the autoscaler with these values. */
function page(desired: number, ready: number, starting: number, decisions: { up: number; none: number }): string {
  const { desired: d, ready: r, starting: s, value: v, decisions: n } = AUTOSCALER_SERIES;
  return [`# TYPE ${d} gauge`, `${d} ${desired}`, `${r} ${ready}`, `${s} ${starting}`, `${v}{metric="queueDepth"} 12`, `${n}{direction="up"} ${decisions.up}`, `${n}{direction="none"} ${decisions.none}`, ''].join('\n');
}

describe('readGaugeSample', () => {
  it('reads the gauges and sums the decision counter over its directions', () => {
    expect(readGaugeSample(page(3, 1, 2, { up: 1, none: 4 }), 1500)).toEqual({ atMs: 1500, desired: 3, ready: 1, starting: 2, value: 12, decisions: 5 });
  });

  it('reads the sizes before the first decision, when the metric has no value yet', () => {
    const { desired: d, ready: r, starting: s } = AUTOSCALER_SERIES;
    expect(readGaugeSample([`${d} 1`, `${r} 1`, `${s} 0`].join('\n'), 10)).toEqual({ atMs: 10, desired: 1, ready: 1, starting: 0, decisions: 0 });
  });

  it('gives nothing for a page without the gauges (not zeros in their place)', () => {
    expect(readGaugeSample('# nothing here\nprocess_cpu_seconds_total 1\n', 0)).toBeUndefined();
  });
});

describe('autoscalerUrlFromConfig', () => {
  it('is the autoscaler’s address when the config enables one', () => {
    expect(autoscalerUrlFromConfig({ autoscaler: { enabled: true, host: '0.0.0.0', port: 18900 } })).toBe('http://127.0.0.1:18900');
    expect(autoscalerUrlFromConfig({ autoscaler: { enabled: false, host: '127.0.0.1', port: 18900 } })).toBeUndefined();
    expect(autoscalerUrlFromConfig(null)).toBeUndefined();
  });
});

describe('AutoscalerGaugeSampler against a real HTTP /metrics', () => {
  let server: Server;
  let url: string;
  let served = 0;
  // The pool grows from 1 to 3 over the readings: what each reading sees is what was served then.
  const pages = [page(1, 1, 0, { up: 0, none: 1 }), page(3, 1, 2, { up: 1, none: 1 }), page(3, 3, 0, { up: 1, none: 2 })];

  beforeAll(async () => {
    server = createServer((_req, res) => res.end(pages[Math.min(served++, pages.length - 1)]));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads the page every interval until stopped, each reading timed by the run’s clock', async () => {
    let clock = 0;
    const sampler = AutoscalerGaugeSampler.start(url, () => (clock += 100), 20);
    while (served < pages.length + 1) await new Promise((resolve) => setTimeout(resolve, 5));
    const result = await sampler.stop();
    expect('samples' in result).toBe(true);
    const samples = 'samples' in result ? result.samples : [];
    expect(samples.slice(0, 3).map((s) => [s.desired, s.ready, s.starting, s.decisions])).toEqual([
      [1, 1, 0, 1],
      [3, 1, 2, 2],
      [3, 3, 0, 3],
    ]);
    expect(samples.map((s) => s.atMs)).toEqual([...samples.map((s) => s.atMs)].sort((a, b) => a - b));
  });

  it('says why there is no reading when nothing answers', async () => {
    const sampler = AutoscalerGaugeSampler.start('http://127.0.0.1:1', () => 0, 20);
    const result = await sampler.stop();
    expect(result).toMatchObject({ why: expect.stringContaining('gave no reading') });
  });
});
