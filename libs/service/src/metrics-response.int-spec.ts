import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { LeanHistogram, MetricsPage, OPENMETRICS_CONTENT_TYPE, openMetricsProblems } from '@sluice/telemetry';
import { METRICS_CONTENT_TYPE, sendMetricsPage } from './metrics-response.js';

/** A page on a real HTTP server, as the services serve it. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function serve(page: MetricsPage): Promise<string> {
  const server = createServer((req, res) => {
    sendMetricsPage(page, res, req.headers.accept).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

/** A registry of many lean series: a page of several MB, more than a socket takes at once. */
function bigRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'sluice-test' });
  const h = new LeanHistogram({ name: 'x_seconds', help: 'x', labelNames: ['tenant'], buckets: [0.01, 0.1, 1, 10], registers: [registry] });
  for (let i = 0; i < 10_000; i++) h.observe({ tenant: `tenant-${i}` }, i / 1000);
  return registry;
}

describe('sendMetricsPage', () => {
  it('sends the page byte for byte, in the Prometheus text format, to scrapers reading at their own pace', async () => {
    const registry = bigRegistry();
    const url = await serve(new MetricsPage(registry));
    const expected = await registry.metrics();
    expect(expected.length).toBeGreaterThan(2_000_000);
    const [fast, slow] = await Promise.all([
      fetch(url).then(async (res) => ({ type: res.headers.get('content-type'), text: await res.text() })),
      // A reader that pauses: the server waits for the socket to drain rather than buffering on.
      new Promise<string>((resolve, reject) => {
        request(url, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => {
            parts.push(part);
            res.pause();
            setTimeout(() => res.resume(), 1);
          });
          res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      }),
    ]);
    expect(fast.type).toBe(METRICS_CONTENT_TYPE);
    expect(fast.text).toBe(expected);
    expect(slow).toBe(expected);
  });

  it('sends OpenMetrics, exemplars and # EOF, to a scraper that asks for it as Prometheus does, and 0.0.4 to anyone else', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'sluice-test' });
    const h = new LeanHistogram({ name: 'x_seconds', help: 'x', buckets: [0.1, 1], registers: [registry] });
    h.observe({}, 0.5, { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' });
    const url = await serve(new MetricsPage(registry));
    const prometheusAccept = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const open = await fetch(url, { headers: { accept: prometheusAccept } });
    expect(open.headers.get('content-type')).toBe(OPENMETRICS_CONTENT_TYPE);
    expect(open.headers.get('vary')).toBe('Accept');
    const openText = await open.text();
    expect(openMetricsProblems(openText)).toEqual([]);
    expect(openText).toMatch(/^x_seconds_bucket\{le="1.0",service="sluice-test"\} 1 # \{trace_id="4bf92f3577b34da6a3ce929d0e0e4736"\} 0.5 \d+(\.\d+)?$/m);
    const plain = await fetch(url, { headers: { accept: '*/*' } });
    expect(plain.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
    expect(await plain.text()).toBe(await registry.metrics());
  });

  it('answers 500 when the render fails before its first chunk, and cuts the connection when it fails later', async () => {
    const registry = new Registry();
    let failing = true;
    new Gauge({
      name: 'flaky',
      help: 'collect throws while failing is set',
      registers: [registry],
      collect() {
        if (failing) throw new Error('collect failed');
      },
    });
    const url = await serve(new MetricsPage(registry));
    expect((await fetch(url)).status).toBe(500);

    // A lean family first, so the page has started when the failing family is reached.
    const late = new Registry();
    new LeanHistogram({ name: 'first_seconds', help: 'f', buckets: [1], registers: [late] }).labels().observe(1);
    new Gauge({
      name: 'flaky',
      help: 'collect throws',
      registers: [late],
      collect() {
        throw new Error('collect failed');
      },
    });
    const lateUrl = await serve(new MetricsPage(late));
    await expect(fetch(lateUrl).then((res) => res.text())).rejects.toThrow();
    failing = false;
    expect(await (await fetch(url)).text()).toContain('# TYPE flaky gauge');
  });
});
