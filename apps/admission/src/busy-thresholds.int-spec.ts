import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_WORKERS_BUSY_BODY } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, postCompletion, scrapeTargetsAhead, startPrometheus, type PrometheusProcess } from '@sluice/testing';

/**
 * Busy thresholds on a real cluster: they take effect whatever the admission chain (the routers
 * route only among free instances), and Dynamo's rejection-rate query, evaluated by a real
 * Prometheus scraping the services, gives the figure the client saw.
 */

let nextId = 1;
/** A prompt of `n` fresh token ids (no prefix shared with other requests of the test). */
const prompt = (n: number) => Array.from({ length: n }, () => nextId++ % 128_000);
const complete = (url: string, body: object) => postCompletion(url, { max_tokens: 1, ...body });
const serviceUrl = (cluster: LocalCluster, name: string) => cluster.services.find((s) => s.name === name)!.url;
const setBusy = (cluster: LocalCluster, body: object) =>
  fetch(`${cluster.gatewayUrl}/busy_threshold`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Two long requests, one per rank: each rank then holds decode blocks (> 0 of its total) for a while. */
const occupyBothRanks = (cluster: LocalCluster) => [0, 1].map(() => complete(cluster.gatewayUrl, { prompt: prompt(256), max_tokens: 150 }));

/** Sends probes until one is shed; returns every probe's status (the last a 503 in OpenAI's error shape, Dynamo's message). */
async function probeUntilShed(cluster: LocalCluster): Promise<number[]> {
  const statuses: number[] = [];
  await eventually(
    async () => {
      const res = await complete(cluster.gatewayUrl, { prompt: prompt(16) });
      statuses.push(res.status);
      const body: unknown = await res.json();
      if (res.status === 503) {
        expect(body).toEqual({ error: { message: ALL_WORKERS_BUSY_BODY.message, type: 'service_unavailable', param: null, code: 'all_workers_busy' } });
        expect(res.headers.get('retry-after')).toBe('1');
      }
      return res.status === 503;
    },
    10_000,
    'a 503 while both ranks decode',
  );
  return statuses;
}

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const noPrometheus = !existsSync(PROMETHEUS);
if (noPrometheus) console.warn(`skipping the rejection-rate test: no prometheus binary at ${PROMETHEUS} (set PROMETHEUS_BIN)`);

let chainTargets: Awaited<ReturnType<typeof scrapeTargetsAhead>>;
let chainPrometheus: PrometheusProcess | undefined;
// The rejection-rate test's Prometheus starts first, given that test's targets ahead (ports picked
// here): it scrapes a target about 5 s after it starts at the earliest, which the first test covers.
beforeAll(async () => {
  if (noPrometheus) return;
  chainTargets = await scrapeTargetsAhead(['admission', 'router']);
  chainPrometheus = await startPrometheus(chainTargets.jobs, 0.2);
});
afterAll(() => chainPrometheus?.stop());

describe('busy thresholds without busy-threshold in the admission chain', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // Two data-parallel ranks in one worker; snapshots on every change, seen by the router at once.
      configArgs: [...FREE_PORT_ARGS, '--admission.policy=token-bucket', '--worker.instances=2', '--worker.loadIntervalMs=0', '--router.snapshotRefreshIntervalMs=0'],
    });
  });
  afterAll(() => cluster?.stop());

  it('POST /busy_threshold takes effect at the router: 503 all_workers_busy once every rank is busy, lifted when cleared', async () => {
    const set = await setBusy(cluster, { model: 'qwen3-14b', active_decode_blocks_threshold: 0 });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ model: 'qwen3-14b', active_decode_blocks_threshold: 0, active_prefill_tokens_threshold: null });

    const long = occupyBothRanks(cluster);
    await probeUntilShed(cluster);
    // Refused by the router (the only check in admission is the token bucket, which admitted it).
    expect(await metricValue(serviceUrl(cluster, 'router'), 'dynamo_tasks_rejected_total', 'model="qwen3-14b"')).toBeGreaterThanOrEqual(1);
    expect(await metricValue(serviceUrl(cluster, 'admission'), 'sluice_admission_decisions_total', 'reason="all_workers_busy"')).toBe(0);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="rejected",reason="all_workers_busy"')).toBeGreaterThanOrEqual(1);

    // Cleared: the router routes to the busy ranks again at once.
    expect((await setBusy(cluster, { model: 'qwen3-14b', active_decode_blocks_threshold: null })).status).toBe(200);
    await eventually(async () => (await complete(cluster.gatewayUrl, { prompt: prompt(16) })).status === 200, 5_000, 'a 200 once the threshold is cleared');
    for (const res of await Promise.all(long)) expect(res.status).toBe(200);
  });
});

describe.skipIf(noPrometheus)('Dynamo’s rejection-rate query on a real Prometheus', () => {
  let cluster: LocalCluster;
  let prometheus: PrometheusProcess;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // The chain sheds first; the router refreshes its view once a minute, so within this test it
      // sees no instance busy and every rejection is admission's (one target: the numerator's and
      // the denominator's samples share their timestamps, so the two rates extrapolate alike).
      configArgs: [...chainTargets.configArgs, '--admission.policy=busy-threshold,token-bucket', '--worker.instances=2', '--worker.loadIntervalMs=0', '--router.snapshotRefreshIntervalMs=60000'],
    });
    prometheus = chainPrometheus!;
  });
  afterAll(() => cluster?.stop());

  const query = async (expr: string): Promise<number | undefined> => {
    const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
    const value = body.data.result[0]?.value[1];
    return value === undefined ? undefined : Number(value);
  };

  it('sum(rate(dynamo_tasks_rejected_total[5m])) / sum(rate(dynamo_tasks_issued_total[5m])) is the share of requests the client saw shed', async () => {
    // Both series are scraped at 0 before the first request, so each rate counts every request.
    await eventually(async () => (await query('sum(dynamo_tasks_issued_total)')) === 0 && (await query('sum(dynamo_tasks_rejected_total)')) === 0, 15_000, 'Prometheus scraping the task series at 0');

    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await complete(cluster.gatewayUrl, { prompt: prompt(64) })).status);
    expect((await setBusy(cluster, { model: 'qwen3-14b', active_decode_blocks_threshold: 0 })).status).toBe(200);
    const long = occupyBothRanks(cluster);
    statuses.push(...(await probeUntilShed(cluster)));
    for (let i = 0; i < 4; i++) {
      const res = await complete(cluster.gatewayUrl, { prompt: prompt(16) });
      await res.text();
      statuses.push(res.status);
    }
    await setBusy(cluster, { model: 'qwen3-14b', active_decode_blocks_threshold: null });
    statuses.push(...(await Promise.all(long)).map((r) => r.status));

    const issued = statuses.length;
    const rejected = statuses.filter((s) => s === 503).length;
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(rejected).toBeGreaterThanOrEqual(1);
    expect(await metricValue(serviceUrl(cluster, 'router'), 'dynamo_tasks_rejected_total')).toBe(0);

    // Once Prometheus holds the final counts, the seed's expression is the client's share exactly.
    await eventually(
      async () => (await query('sum(dynamo_tasks_issued_total)')) === issued && (await query('sum(dynamo_tasks_rejected_total)')) === rejected,
      10_000,
      `Prometheus holding ${issued} issued and ${rejected} rejected`,
    );
    const rate = await query('sum(rate(dynamo_tasks_rejected_total[5m])) / sum(rate(dynamo_tasks_issued_total[5m]))');
    expect(rate).toBeCloseTo(rejected / issued, 9);
    // Dynamo's alert expression (docs/fault-tolerance/request-rejection.md) fires exactly when the client's share is above 10%.
    const alert = await query('sum(rate(dynamo_tasks_rejected_total[5m])) / sum(rate(dynamo_tasks_issued_total[5m])) > 0.1');
    if (rejected / issued > 0.1) expect(alert).toBeCloseTo(rejected / issued, 9);
    else expect(alert).toBeUndefined();
  });
});
