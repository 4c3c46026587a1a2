import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '@sluice/collections';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, postCompletion, natsArgsAs } from '@sluice/testing';

/**
 * Routing policies on a live cluster of four instances (one worker process), through the real
 * gateway, admission and flow controller.
 */

let nextToken = 1;
const fresh = (n: number) => Array.from({ length: n }, () => nextToken++ % 128_000);

function complete(url: string, prompt: number[], maxTokens = 2, signal?: AbortSignal): Promise<Response> {
  return postCompletion(url, { prompt, max_tokens: maxTokens }, signal ? { signal } : {});
}

const serviceUrl = (cluster: LocalCluster, name: string) => cluster.services.find((s) => s.name === name)!.url;

/** The instance label values of a gauge or counter on a /metrics page, with their values. */
async function byInstance(url: string, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const instance = /worker_instance="([^"]+)"/.exec(line)?.[1];
    if (instance) values.set(instance, Number(line.split(' ').at(-1)));
  }
  return values;
}

/** A seeded shuffle, so each run sends the same order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * 8 groups of requests share 1024-token prefixes (64 blocks), each with its own 64-token tail.
 * Each instance's KV cache (200 blocks) holds about two prefixes, so an instance that sees every
 * group thrashes, and one that keeps to its groups hits. The first wave goes out at once (in-flight
 * counts spread it, two groups per instance); later waves one request at a time, in a shuffled
 * order. Returns the workers' own prefix-cache hit rate (vllm:prefix_cache_hits / queries).
 */
async function prefixWorkload(cluster: LocalCluster): Promise<number> {
  const prefixes = Array.from({ length: 8 }, () => fresh(1024));
  const send = async (group: number) => expect((await complete(cluster.gatewayUrl, [...prefixes[group]!, ...fresh(64)])).status).toBe(200);
  await Promise.all(prefixes.map((_, group) => send(group)));
  for (let wave = 1; wave < 12; wave++) {
    for (const group of shuffled([0, 1, 2, 3, 4, 5, 6, 7], wave)) await send(group);
  }
  const worker = serviceUrl(cluster, 'worker');
  const hits = await metricSum(worker, 'vllm:prefix_cache_hits_total');
  const queries = await metricSum(worker, 'vllm:prefix_cache_queries_total');
  expect(queries).toBe(96 * 1088);
  return hits / queries;
}

const prefixCluster = (policy: string) =>
  startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [...FREE_PORT_ARGS, `--router.policy=${policy}`, '--worker.instances=4', '--worker.kvBlocks=200', '--worker.timeScale=5'],
  });

describe('prefix-aware routing', () => {
  let weighted: LocalCluster;
  let roundRobin: LocalCluster;
  beforeAll(async () => {
    [weighted, roundRobin] = await Promise.all([prefixCluster('weighted'), prefixCluster('round-robin')]);
  });
  afterAll(async () => {
    await Promise.all([weighted?.stop(), roundRobin?.stop()]);
  });

  it('weighted keeps each prefix group on one instance (hit rate ≥ 80%); round-robin scatters them (about 1/4)', async () => {
    // Two clusters of their own, with prefixes of their own: the workloads run at once. Within each,
    // the first wave is spread by the router's own in-flight counts and the later waves go one
    // request at a time, so what the other cluster does to the timing moves no decision.
    const [weightedHits, roundRobinHits] = await Promise.all([prefixWorkload(weighted), prefixWorkload(roundRobin)]);
    expect(weightedHits).toBeGreaterThanOrEqual(0.8);
    expect(roundRobinHits).toBeLessThan(0.4);
    // Round-robin's regret is positive somewhere; weighted picks its argmax, so its regret is 0.
    expect(await metricSum(serviceUrl(weighted, 'router'), 'sluice_router_regret_sum')).toBe(0);
  });
});

describe('least-loaded routing and instance loss', () => {
  let cluster: LocalCluster;
  let extra: LocalCluster | undefined;
  const heartbeatTimeoutMs = 1_000;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--router.policy=least-loaded', `--router.heartbeatTimeoutMs=${heartbeatTimeoutMs}`, '--worker.heartbeatIntervalMs=250', '--worker.instances=4', '--worker.timeScale=2'],
    });
  });
  afterAll(async () => {
    await extra?.stop();
    await cluster?.stop();
  });

  it('keeps in-flight counts within 1 of each other under a steady load', async () => {
    const router = serviceUrl(cluster, 'router');
    const aborts: AbortController[] = [];
    const running: Promise<unknown>[] = [];
    try {
      for (let i = 0; i < 14; i++) {
        const abort = new AbortController();
        aborts.push(abort);
        running.push(complete(cluster.gatewayUrl, fresh(64), 2_000, abort.signal).catch(() => undefined));
        // A steady trickle, not one burst: arrivals further apart than a snapshot interval plus
        // its refresh (50 + 50 ms), so each decision sees the earlier requests in the snapshots too.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      await eventually(async () => (await metricSum(router, 'sluice_router_inflight')) === 14, 5_000, '14 requests in flight');
      const counts = [...(await byInstance(router, 'sluice_router_inflight')).values()];
      expect(counts).toHaveLength(4);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);

      // The Endpoint Picker's pool view of the same moment: one series per live instance under
      // both names, averages over the four, the pool named by config inferencePool.
      const page = await (await fetch(`${router}/metrics`)).text();
      const lines = (name: string) => page.split('\n').filter((l) => l.startsWith(`${name}{`));
      for (const [name, label] of [['inference_pool_per_pod_queue_size', 'model_server_pod'], ['llm_d_epp_per_endpoint_queue_size', 'model_server_endpoint']] as const) {
        const endpoints = lines(name).map((l) => new RegExp(`${label}="([^"]+)"`).exec(l)?.[1]);
        expect(endpoints.sort(), name).toEqual([...(await byInstance(router, 'sluice_router_inflight')).keys()].sort());
      }
      for (const name of ['inference_pool_ready_pods', 'llm_d_epp_ready_endpoints']) expect(await metricSum(router, name, 'name="sluice"'), name).toBe(4);
      for (const name of ['inference_pool_average_running_requests', 'llm_d_epp_average_running_requests']) {
        expect(await metricSum(router, name, 'name="sluice"'), name).toBeGreaterThan(0);
      }
      expect(await metricSum(router, 'inference_pool_average_kv_cache_utilization', 'name="sluice"')).toBeGreaterThan(0);
      expect(await metricSum(router, 'llm_d_epp_scheduler_attempts_total', 'status="success"')).toBeGreaterThanOrEqual(14);
      expect(await metricSum(router, 'inference_extension_scheduler_e2e_duration_seconds_count')).toBe(await metricSum(router, 'llm_d_epp_scheduler_e2e_duration_seconds_count'));
    } finally {
      for (const abort of aborts) abort.abort();
      await Promise.all(running);
    }
    await eventually(async () => (await metricSum(router, 'sluice_router_inflight')) === 0, 5_000, 'the aborted requests done');
  });

  it('drops a killed worker’s instances within the heartbeat timeout, migrates what they held, and sends them nothing afterwards', async () => {
    const router = serviceUrl(cluster, 'router');
    const before = new Set((await byInstance(router, 'sluice_router_inflight')).keys());
    extra = await startLocalCluster({ rootDir: REPO_ROOT, natsUrl: cluster.natsUrl, services: ['worker'], restart: false, configArgs: [...FREE_PORT_ARGS, ...natsArgsAs(cluster, 'worker').slice(1), '--worker.heartbeatIntervalMs=250', '--worker.instances=2'] });
    let added: string[] = [];
    await eventually(
      async () => {
        added = [...(await byInstance(router, 'sluice_router_inflight')).keys()].filter((id) => !before.has(id));
        return added.length === 2;
      },
      5_000,
      'the extra worker’s two instances registered',
    );

    // One long request per instance (least-loaded spreads them by in-flight count): two of them on
    // the extra worker's instances, which die with it.
    const aborts = Array.from({ length: 6 }, () => new AbortController());
    const long = aborts.map((abort) =>
      complete(cluster.gatewayUrl, fresh(32), 5_000, abort.signal)
        .then(async (res) => ({ status: res.status, body: await res.text() }))
        .catch(() => undefined),
    );
    await eventually(async () => (await metricSum(router, 'sluice_router_inflight')) === 6, 5_000, 'six long requests in flight');
    const onExtra = await byInstance(router, 'sluice_router_inflight');
    expect(added.map((id) => onExtra.get(id))).toEqual([1, 1]);

    process.kill(extra.services[0]!.pid, 'SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => {
      const known = await byInstance(router, 'sluice_router_inflight');
      return added.every((id) => !known.has(id));
    }, 5_000, 'the killed instances dropped');
    // Expiry runs every heartbeatTimeout/3: gone by the timeout plus one sweep.
    expect(Date.now() - killedAt).toBeLessThan(heartbeatTimeoutMs + heartbeatTimeoutMs / 3 + 500);
    // Their gateway was told (a migrate frame) and sent each again, to a live instance: all six run.
    await eventually(async () => (await metricSum(cluster.gatewayUrl, 'sluice_migrations_total', 'reason="worker_lost"')) === 2, 5_000, 'two requests migrated');
    await eventually(async () => (await metricSum(router, 'sluice_router_inflight')) === 6, 5_000, 'the two migrated requests running again');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total', 'reason="worker_lost"')).toBe(0);
    for (const abort of aborts) abort.abort();
    await Promise.all(long);

    const decisionsBefore = await byInstance(router, 'sluice_router_decisions_total');
    const answers = await Promise.all(Array.from({ length: 20 }, () => complete(cluster.gatewayUrl, fresh(32))));
    for (const res of answers) expect(res.status).toBe(200);
    const decisionsAfter = await byInstance(router, 'sluice_router_decisions_total');
    for (const id of added) expect(decisionsAfter.get(id) ?? 0).toBe(decisionsBefore.get(id) ?? 0);
  });
});
