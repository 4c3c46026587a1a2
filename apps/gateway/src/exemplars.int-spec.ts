import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { eventually, postCompletion, startPrometheus, startTracedCluster, type PrometheusProcess, type TracedCluster } from '@sluice/testing';
import { openMetricsProblems } from '@sluice/telemetry';

/**
 * From a slow request on a dashboard to its trace: a real Prometheus (the Debian binary, exemplar
 * storage on, as in the compose stack) scrapes a real gateway, which answers its Accept with
 * OpenMetrics; the TTFT and request-duration buckets carry the `trace_id` of requests the gateway
 * traced, and `/api/v1/query_exemplars` gives them back: the ids the answers' `x-sluice-trace-id`
 * named.
 */

/** Prometheus 2.x's default scrape Accept. */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const EXEMPLAR_HISTOGRAMS = ['sluice_time_to_first_token_seconds', 'sluice_request_duration_seconds'];

interface ExemplarsResponse {
  readonly status: string;
  readonly data?: readonly { readonly seriesLabels: Record<string, string>; readonly exemplars: readonly { readonly labels: Record<string, string>; readonly value: string }[] }[];
}

/** The trace ids among a histogram's exemplars over the last minute. */
async function exemplarTraceIds(prometheusUrl: string, histogram: string): Promise<Set<string>> {
  const now = Date.now() / 1000;
  const query = new URLSearchParams({ query: `${histogram}_bucket`, start: String(now - 60), end: String(now + 1) });
  const body = (await (await fetch(`${prometheusUrl}/api/v1/query_exemplars?${query.toString()}`)).json()) as ExemplarsResponse;
  expect(body.status).toBe('success');
  return new Set((body.data ?? []).flatMap((series) => series.exemplars.map((e) => e.labels.trace_id ?? '')));
}

describe('exemplars on the gateway’s latency histograms', () => {
  let traced: TracedCluster;
  let prometheus: PrometheusProcess;
  let gatewayMetrics: string;
  /** The trace ids the answers named. */
  const traceIds = new Set<string>();

  beforeAll(async () => {
    traced = await startTracedCluster(['--worker.timeScale=10']);
    gatewayMetrics = `${traced.cluster.services.find((s) => s.name === 'gateway')!.url}/metrics`;
    // Every service: each answers Prometheus' Accept with OpenMetrics, and a page Prometheus could not parse would fail its whole scrape.
    const jobs = Object.fromEntries(traced.cluster.services.map((s) => [s.name, [new URL(s.url).host]]));
    prometheus = await startPrometheus(jobs, 0.5, ['exemplar-storage']);
    // Requests through every stage first, so each page has the series a request writes.
    for (let i = 0; i < 4; i++) {
      const res = await postCompletion(traced.cluster.gatewayUrl, { prompt: `exemplar ${i}`, max_tokens: 2 });
      expect(res.status).toBe(200);
      await res.text();
      const traceId = res.headers.get(httpHeaders.traceId);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      traceIds.add(traceId!);
    }
  }, 120_000);

  afterAll(async () => {
    await prometheus?.stop();
    await traced?.stop();
  });

  it('every service’s OpenMetrics page passes the strict check, and Prometheus scrapes each of them', { timeout: 60_000 }, async () => {
    for (const service of traced.cluster.services) {
      const page = await fetch(`${service.url}/metrics`, { headers: { accept: PROMETHEUS_ACCEPT } });
      expect(page.headers.get('content-type'), service.name).toMatch(/^application\/openmetrics-text; version=1.0.0/);
      expect(openMetricsProblems(await page.text()), service.name).toEqual([]);
    }
    const jobs = traced.cluster.services.map((s) => s.name);
    await eventually(
      async () => {
        const body = (await (await fetch(`${prometheus.url}/api/v1/query?query=up`)).json()) as { data?: { result: { metric: { job: string }; value: [number, string] }[] } };
        const up = new Set((body.data?.result ?? []).filter((r) => r.value[1] === '1').map((r) => r.metric.job));
        return jobs.every((job) => up.has(job));
      },
      30_000,
      `up == 1 for ${jobs.join(', ')}`,
    );
  });

  it('Prometheus scrapes OpenMetrics and keeps the trace ids of the requests as the exemplars of both histograms', { timeout: 60_000 }, async () => {
    // The page Prometheus reads is valid OpenMetrics to the letter, and names those traces.
    const page = await fetch(gatewayMetrics, { headers: { accept: PROMETHEUS_ACCEPT } });
    expect(page.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1.0.0/);
    const text = await page.text();
    expect(openMetricsProblems(text)).toEqual([]);
    for (const histogram of EXEMPLAR_HISTOGRAMS) expect(text).toMatch(new RegExp(`^${histogram}_bucket\\{[^}]*\\} \\d+ # \\{trace_id="[0-9a-f]{32}"\\}`, 'm'));
    // Without the Accept: the 0.0.4 page, no exemplars.
    expect(await (await fetch(gatewayMetrics)).text()).not.toContain('trace_id');

    for (const histogram of EXEMPLAR_HISTOGRAMS) {
      await eventually(
        async () => {
          const stored = await exemplarTraceIds(prometheus.url, histogram);
          return [...stored].some((id) => traceIds.has(id));
        },
        30_000,
        `${histogram}'s exemplars in Prometheus carry the requests' trace ids`,
      );
      const stored = await exemplarTraceIds(prometheus.url, histogram);
      // Every exemplar stored is one of the traces the gateway handed out: nothing else was sent.
      expect([...stored].filter((id) => !traceIds.has(id))).toEqual([]);
    }
  });
});
