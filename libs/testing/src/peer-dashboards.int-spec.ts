import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type LocalCluster, type ServiceName } from '@sluice/launcher';
import { postCompletion } from './completions.js';
import { parseSamples } from './prometheus-exposition.js';
import { natsArgsAs } from './nats-identities.js';
import { checkFact } from './peer-metrics/check-fact.js';
import { EPP_FACTS } from './peer-metrics/epp-facts.js';
import { VLLM_FACTS } from './peer-metrics/vllm-facts.js';
import { promQuery } from './prometheus-api.js';
import { startScrapedCluster, type PrometheusProcess } from './prometheus-process.js';
import { eventually } from './probes.js';
import { runSluice } from './sluice-cli.js';

/**
 * The dashboards people already have, against a live cluster: vLLM's and the Endpoint
 * Picker's metrics checked by name, type, labels, label values and bucket bounds against facts
 * kept from their sources (./peer-metrics), then a real Prometheus scraping the cluster answers
 * queries of the kind those dashboards run. The workload makes every kind of event those
 * dashboards plot: preemption (8 KV blocks an instance), prefix-cache hits (a shared prefix),
 * flow-control queuing and capacity rejections (a burst past `maxRequests`), and errors
 * (a worker failure rate).
 */

let cluster: LocalCluster;
let prometheus: PrometheusProcess;
const pages = new Map<ServiceName, string>();
const statuses: number[] = [];

const SHARED_PREFIX = Array.from({ length: 48 }, (_, i) => 1_000 + i);
let next = 5_000;

async function send(): Promise<void> {
  const prompt = [...SHARED_PREFIX, ...Array.from({ length: 8 }, () => next++)];
  const res = await postCompletion(cluster.gatewayUrl, { prompt, max_tokens: 24 });
  await res.text();
  statuses.push(res.status);
}

const SCRAPE_INTERVAL_S = 0.5;

/** Resolves once Prometheus has scraped every service `scrapes` times since `sinceMs` (epoch ms). */
async function scrapedSince(sinceMs: number, scrapes: number, what: string): Promise<void> {
  // A scrape's samples carry its start time: the latest one `scrapes - 1` intervals past sinceMs
  // means as many scrapes began after it.
  const after = sinceMs + (scrapes - 1) * SCRAPE_INTERVAL_S * 1000;
  await eventually(async () => {
    const latest = await promQuery(prometheus.url, 'timestamp(up)');
    return latest.length === cluster.services.length && latest.every((s) => s.value * 1000 > after);
  }, 10_000, what);
}

beforeAll(async () => {
  // Prometheus starts with the cluster, its targets picked first.
  ({ cluster, prometheus } = await startScrapedCluster(
    { rootDir: REPO_ROOT, configArgs: ['--worker.instances=2', '--worker.kvBlocks=8', '--worker.timeScale=10', '--flowController.maxRequests=4'], parallel: true },
    SCRAPE_INTERVAL_S,
  ));
  await eventually(async () => (await promQuery(prometheus.url, 'up == 1').catch(() => [])).length === cluster.services.length, 30_000, 'Prometheus scraping every service');

  // Errors: one request in five fails at its worker (a 5xx, vLLM's finished_reason "error").
  const faults = await runSluice(['worker', 'faults', ...natsArgsAs(cluster, 'control'), '--failure-rate=0.2']);
  expect(faults.code, faults.stderr).toBe(0);
  // Three bursts with a scrape of every service between them, so Prometheus sees the counters
  // rising (rate() needs two samples).
  for (let burst = 0; burst < 3; burst++) {
    if (burst > 0) await scrapedSince(Date.now(), 1, `a scrape of every service after burst ${burst}`);
    await Promise.all(Array.from({ length: 16 }, send));
  }
  const readAt = Date.now();
  for (const service of cluster.services) pages.set(service.name, await (await fetch(`${service.url}/metrics`)).text());
  // Two more scrapes after the last request, so every rate() window holds the whole run.
  await scrapedSince(readAt, 2, 'two scrapes of every service after the last request');
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await cluster?.stop();
});

describe('the workload', () => {
  /** The sum of a series over every sample of a service's page whose labels include `where`. */
  const total = (service: ServiceName, series: string, where: Record<string, string> = {}) =>
    parseSamples(pages.get(service) ?? '')
      .filter((s) => s.series === series && Object.entries(where).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);

  it('made every kind of event the dashboards plot: successes, capacity rejections and errors', () => {
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(5);
    expect(statuses).toContain(429);
    expect(statuses.some((s) => s >= 500)).toBe(true);
  });

  it('preempted, hit the prefix cache, and queued in flow control', () => {
    expect(total('worker', 'vllm:num_preemptions_total')).toBeGreaterThan(0);
    expect(total('worker', 'vllm:prefix_cache_hits_total')).toBeGreaterThan(0);
    const dispatched = { outcome: 'Dispatched' };
    const queued = 'inference_extension_flow_control_request_queue_duration_seconds';
    // Dispatched after more than a millisecond in a queue: held while the pool was saturated.
    expect(total('flow-controller', `${queued}_count`, dispatched) - total('flow-controller', `${queued}_bucket`, { ...dispatched, le: '0.001' })).toBeGreaterThan(0);
  });
});

describe.each([
  ['vLLM', VLLM_FACTS],
  ['the Endpoint Picker', EPP_FACTS],
])("%s's metrics, as its dashboards read them", (_peer, facts) => {
  it.each(facts.map((f) => [f.name, f] as const))('%s', (_name, fact) => {
    expect(checkFact(fact, pages.get(fact.service) ?? '')).toEqual([]);
  });
});

describe('queries of the kind those dashboards run, on a real Prometheus', () => {
  const values = async (expr: string) => (await promQuery(prometheus.url, expr)).map((s) => s.value);

  it('a latency quantile over le (histogram_quantile), from the workers and from the EPP', async () => {
    for (const histogram of ['vllm:time_to_first_token_seconds', 'vllm:e2e_request_latency_seconds', 'inference_objective_request_duration_seconds']) {
      const [p95] = await values(`histogram_quantile(0.95, sum by (le) (rate(${histogram}_bucket[1m])))`);
      expect(p95, histogram).toBeGreaterThan(0);
      expect(Number.isFinite(p95), histogram).toBe(true);
    }
  });

  it('a bucket selected by its printed bound (le="1.0", vLLM\'s TTFT SLO tile)', async () => {
    const [share] = await values('sum(rate(vllm:time_to_first_token_seconds_bucket{le="1.0"}[1m])) / (sum(rate(vllm:time_to_first_token_seconds_count[1m])) > 0)');
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it('a success ratio over finished_reason, every reason listed', async () => {
    const reasons = await promQuery(prometheus.url, 'sum by (finished_reason) (vllm:request_success_total)');
    expect(reasons.map((r) => r.labels.finished_reason).sort()).toEqual(['abort', 'error', 'length', 'repetition', 'stop']);
    const [success] = await values('1 - (sum(rate(vllm:request_success_total{finished_reason="error"}[1m])) / (sum(rate(vllm:request_success_total[1m])) > 0))');
    expect(success).toBeGreaterThan(0);
    expect(success).toBeLessThan(1);
  });

  it('vLLM\'s service status reads Online (2) while the workers serve', async () => {
    expect(await values('(2 - (max(vllm:engine_sleep_state{sleep_state="awake"}) == bool 0)) or vector(0)')).toEqual([2]);
  });

  it('a flow-control dispatch rate by outcome="Dispatched", under both names', async () => {
    for (const prefix of ['inference_extension', 'llm_d_epp']) {
      const [rate] = await values(`sum(rate(${prefix}_flow_control_request_queue_duration_seconds_count{outcome="Dispatched"}[1m]))`);
      expect(rate, prefix).toBeGreaterThan(0);
    }
  });

  it('the EPP dashboards\' pool and error panels', async () => {
    const pools = await promQuery(prometheus.url, 'sum by (name) (inference_pool_average_kv_cache_utilization)');
    expect(pools.map((p) => p.labels.name)).toEqual(['sluice']);
    const errors = await promQuery(prometheus.url, 'sum by (error_code, model_name, target_model_name) (increase(inference_objective_request_error_total[1m]))');
    expect(errors.map((e) => e.labels.error_code)).toContain('ResourceExhausted');
    const perPod = await promQuery(prometheus.url, 'sum by (name, model_server_pod) (inference_pool_per_pod_queue_size)');
    expect(perPod).toHaveLength(2);
  });
});
