import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '@sluice/bus';
import { httpHeaders, KvEventSchema, LoadSnapshotSchema, subjectPatterns, subjects, TokensBatchFrameSchema, type KvEvent, type LoadSnapshot, type TokensBatchFrame } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { postCompletion, streamCompletion } from '@sluice/testing';

/** The worker service on a real bus: vLLM's metrics, KV events, load snapshots and fault knobs. */
let cluster: LocalCluster;
let bus: Bus;
const kvEvents: KvEvent[] = [];
const snapshots: LoadSnapshot[] = [];
const batches: TokensBatchFrame[] = [];

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    // An open bus: this spec watches what the worker publishes, a part no bus identity plays.
    configArgs: [...FREE_PORT_ARGS, '--nats.auth=false', '--worker.instances=1', '--worker.timeScale=20', '--gateway.requestTimeoutMs=1500'],
  });
  bus = await Bus.connect({ url: cluster.natsUrl, name: 'worker-spec', ackTimeoutMs: 1000 });
  bus.listen(subjectPatterns.allWorkerKv, KvEventSchema, ({ data }) => void kvEvents.push(data));
  bus.listen(subjectPatterns.allWorkerLoad, LoadSnapshotSchema, ({ data }) => void snapshots.push(data));
  bus.listen(subjectPatterns.allInboxTokens, TokensBatchFrameSchema, ({ data }) => void batches.push(data));
  await bus.flush();
});

afterAll(async () => {
  await bus?.drain();
  await cluster?.stop();
});

const workerUrl = () => cluster.services.find((s) => s.name === 'worker')!.url;

function complete(prompt: number[], maxTokens: number): Promise<Response> {
  return postCompletion(cluster.gatewayUrl, { prompt, max_tokens: maxTokens });
}

async function metrics(): Promise<string> {
  return (await fetch(`${workerUrl()}/metrics`)).text();
}

function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.split(' ').at(-1)) : Number.NaN;
}

/** The sum of a family's samples whose line holds every one of `parts` (label matchers). */
function sampleWith(text: string, name: string, parts: string | readonly string[]): number {
  const wanted = typeof parts === 'string' ? [parts] : parts;
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((p) => l.includes(p)))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

describe('worker instances', () => {
  it('cache a repeated prefix, announce the cached blocks, and count the hits in vLLM metrics', async () => {
    const prompt = Array.from({ length: 256 }, (_, i) => 5000 + i); // 16 full blocks
    expect((await complete(prompt, 2)).status).toBe(200);
    expect((await complete(prompt, 2)).status).toBe(200);
    const stored = kvEvents.flatMap((e) => e.stored);
    expect(stored.length).toBeGreaterThanOrEqual(16);
    const text = await metrics();
    expect(sample(text, 'vllm:prefix_cache_queries_total')).toBeGreaterThanOrEqual(512);
    // The second request found 15 of its 16 blocks (one token is always recomputed): 240 tokens.
    expect(sample(text, 'vllm:prefix_cache_hits_total')).toBeGreaterThanOrEqual(240);
    for (const name of ['vllm:time_to_first_token_seconds_count', 'vllm:e2e_request_latency_seconds_count', 'vllm:request_queue_time_seconds_count', 'vllm:request_prefill_time_seconds_count', 'vllm:request_decode_time_seconds_count', 'vllm:request_prompt_tokens_count', 'vllm:request_generation_tokens_count', 'vllm:inter_token_latency_seconds_count']) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(1);
    }
    expect(text).toContain('vllm:num_requests_running{');
    expect(text).toContain('vllm:kv_cache_usage_perc{');
    expect(text).toContain('vllm:num_preemptions_total');
    // Every step's end is timed against its modelled end (two requests: at least two steps each).
    expect(sample(text, 'sluice_worker_step_timing_error_seconds_count')).toBeGreaterThanOrEqual(4);
  });

  it('send the tokens of streams decoding together as one batch per step, and every stream stays whole and in order', async () => {
    const streams = await Promise.all(Array.from({ length: 6 }, (_, i) => streamCompletion(cluster.gatewayUrl, { prompt: [7000 + i, 1, 2], max_tokens: 20 })));
    for (const answer of streams) {
      expect(answer.status).toBe(200);
      expect(answer.completionTokens).toBe(20);
      expect(answer.pieces).toHaveLength(20);
    }
    // Six requests in one batch decode in the same steps: their frames travelled together.
    expect(batches.some((b) => b.frames.length >= 2)).toBe(true);
    expect(new Set(batches.flatMap((b) => b.frames.map((f) => f.requestId))).size).toBeGreaterThanOrEqual(2);
  });

  it('publish load snapshots with the instance identity and KV size', async () => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const last = snapshots.at(-1)!;
    expect(last).toMatchObject({ rank: 0, totalKvBlocks: 17600 });
    expect(last.freeKvBlocks).toBeLessThanOrEqual(17600);
  });

  it('inject failures at run time from the control subject', async () => {
    const set = (faults: object) => bus.ask(subjects.control('worker', 'set-faults'), { faults });
    await set({ failureRate: 1, failureTypes: ['rate_limit'] });
    const limited = await complete([1, 2, 3], 2);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('injected_rate_limit');

    await set({ failureRate: 0, hang: true });
    const hung = await complete([1, 2, 3], 2);
    expect(hung.status).toBe(504);

    const result = (await set({ hang: false, slowdown: 1 })) as Record<string, { hang: boolean }>;
    expect(Object.values(result).every((f) => f.hang === false)).toBe(true);
    expect((await complete([1, 2, 3], 2)).status).toBe(200);
  });

  it("expose vLLM's series from the start and count every finished request by reason, every step, and every request as the pod's API server would", async () => {
    // After the tests above: completions (length), a hung request the gateway gave up on (abort),
    // an injected rate limit (a 4xx the API server answers before the engine).
    const text = await metrics();
    for (const reason of ['stop', 'length', 'abort', 'error', 'repetition']) {
      expect(text, reason).toMatch(new RegExp(`^vllm:request_success_total\\{[^}]*finished_reason="${reason}"`, 'm'));
    }
    expect(sampleWith(text, 'vllm:request_success_total', 'finished_reason="length"')).toBeGreaterThanOrEqual(4);
    expect(sampleWith(text, 'vllm:request_success_total', 'finished_reason="abort"')).toBeGreaterThanOrEqual(1);
    // Histograms write their bounds as vLLM's Python client does.
    expect(text).toMatch(/^vllm:iteration_tokens_total_bucket\{[^}]*le="1.0"[^}]*\} \d+/m);
    expect(text).toMatch(/^vllm:request_prompt_tokens_bucket\{[^}]*le="20000.0"/m);
    expect(text).not.toMatch(/^vllm:request_prompt_tokens_bucket\{[^}]*le="50000.0"/m);
    expect(sampleWith(text, 'vllm:iteration_tokens_total_count', '')).toBeGreaterThanOrEqual(4);
    // The reasons a request waits sum to the waiting gauge.
    const waiting = sampleWith(text, 'vllm:num_requests_waiting', '');
    const byReason = ['capacity', 'deferred'].map((reason) => sampleWith(text, 'vllm:num_requests_waiting_by_reason', `reason="${reason}"`));
    expect(byReason.every(Number.isFinite)).toBe(true);
    expect(byReason[0]! + byReason[1]!).toBe(waiting);
    expect(sampleWith(text, 'vllm:engine_sleep_state', 'sleep_state="awake"')).toBe(1);
    expect(sampleWith(text, 'vllm:engine_sleep_state', 'sleep_state="discard_all"')).toBe(0);
    expect(sampleWith(text, 'vllm:cache_config_info', ['engine="0"', 'block_size="16"', 'num_gpu_blocks="17600"', 'enable_prefix_caching="True"', 'num_cpu_blocks="None"'])).toBe(1);
    // Prompt tokens by source (each series there, external_kv_transfer at 0) sum to the prompt tokens.
    for (const source of ['local_compute', 'local_cache_hit', 'external_kv_transfer']) expect(text).toContain(`source="${source}"`);
    const bySource = ['local_compute', 'local_cache_hit', 'external_kv_transfer'].reduce((sum, source) => sum + sampleWith(text, 'vllm:prompt_tokens_by_source_total', `source="${source}"`), 0);
    expect(bySource).toBe(sampleWith(text, 'vllm:prompt_tokens_total', ''));
    expect(sampleWith(text, 'vllm:request_time_per_output_token_seconds_count', '')).toBeGreaterThanOrEqual(4);
    expect(sampleWith(text, 'vllm:request_params_n_bucket', 'le="1.0"')).toBe(sampleWith(text, 'vllm:request_params_n_count', ''));
    // The HTTP metrics of the pod's API server: completions 2xx, the injected rate limit 4xx.
    expect(sampleWith(text, 'http_requests_total', ['handler="/v1/completions"', 'status="2xx"'])).toBeGreaterThanOrEqual(5);
    expect(sampleWith(text, 'http_requests_total', ['handler="/v1/chat/completions"', 'status="2xx"'])).toBe(0);
    expect(sampleWith(text, 'http_requests_total', 'status="4xx"')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{[^}]*le="1.0"/m);
    expect(sampleWith(text, 'http_request_duration_highr_seconds_count', '')).toBe(sampleWith(text, 'http_requests_total', ''));
  });

  it('slow down one instance by a factor', async () => {
    const prompt = [9, 9, 9];
    /** The client's wall time, and the worker's own service time (prefill + decode) from the stage timings it reports. */
    const timed = async () => {
      const t = performance.now();
      const res = await postCompletion(cluster.gatewayUrl, { prompt, max_tokens: 30 }, { headers: { [httpHeaders.reportTimings]: '1' } });
      const body = (await res.json()) as { sluice: { timings: { prefillMs: number; decodeMs: number } } };
      return { wallMs: performance.now() - t, serviceMs: body.sluice.timings.prefillMs + body.sluice.timings.decodeMs };
    };
    const normal = await timed();
    await bus.ask(subjects.control('worker', 'set-faults'), { faults: { slowdown: 4 } });
    const slow = await timed();
    await bus.ask(subjects.control('worker', 'set-faults'), { faults: { slowdown: 1 } });
    // Every step takes four times its modelled time: the worker's service time is 4× (30 tokens at
    // timeScale 20: ~21 ms, then ~85 ms). The client's wall time adds the path's cost to both, which
    // on a loaded machine is as large as the normal request itself, so it is only checked to grow.
    expect(slow.serviceMs / normal.serviceMs).toBeGreaterThan(3.8);
    expect(slow.serviceMs / normal.serviceMs).toBeLessThan(4.2);
    expect(slow.wallMs).toBeGreaterThan(normal.wallMs);
  });
});

describe('with a small KV cache, every block sampled', () => {
  let small: LocalCluster;

  beforeAll(async () => {
    small = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--nats.auth=false', '--worker.instances=1', '--worker.timeScale=20', '--worker.kvBlocks=8', '--worker.kvCacheMetricsSample=1'],
    });
  });

  afterAll(async () => {
    await small?.stop();
  });

  it('reports the lifetime and idle time of evicted KV blocks, and the gaps between reuses', async () => {
    const url = small.services.find((s) => s.name === 'worker')!.url;
    const shared = Array.from({ length: 48 }, (_, i) => 300 + i); // 3 full blocks
    // The shared prompt three times (its blocks reused twice: one reuse gap each), then other
    // prompts that need every block: the shared ones are evicted.
    for (let i = 0; i < 3; i++) expect((await postCompletion(small.gatewayUrl, { prompt: shared, max_tokens: 2 })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await postCompletion(small.gatewayUrl, { prompt: Array.from({ length: 100 }, (_, j) => 9000 + 100 * i + j), max_tokens: 2 })).status).toBe(200);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(sampleWith(text, 'vllm:kv_block_lifetime_seconds_count', '')).toBeGreaterThanOrEqual(3);
    expect(sampleWith(text, 'vllm:kv_block_idle_before_evict_seconds_count', '')).toBe(sampleWith(text, 'vllm:kv_block_lifetime_seconds_count', ''));
    expect(sampleWith(text, 'vllm:kv_block_reuse_gap_seconds_count', '')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^vllm:kv_block_lifetime_seconds_bucket\{[^}]*le="0.001"/m);
  });
});

describe('with loadIntervalMs = 0', () => {
  let onChange: LocalCluster;
  let listener: Bus;
  const seen: LoadSnapshot[] = [];

  beforeAll(async () => {
    onChange = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--nats.auth=false', '--worker.instances=1', '--worker.timeScale=20', '--worker.loadIntervalMs=0'],
    });
    listener = await Bus.connect({ url: onChange.natsUrl, name: 'worker-spec-on-change', ackTimeoutMs: 1000 });
    listener.listen(subjectPatterns.allWorkerLoad, LoadSnapshotSchema, ({ data }) => void seen.push(data));
    await listener.flush();
  });

  afterAll(async () => {
    await listener?.drain();
    await onChange?.stop();
  });

  it('publishes a snapshot on every change, and while idle only the slow refresh', async () => {
    const res = await fetch(`${onChange.gatewayUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-14b', prompt: [1, 2, 3], max_tokens: 5 }),
    });
    expect(res.status).toBe(200);
    await listener.flush();
    // One on arrival, one per step (prefill + 4 decode steps): at least 6, and a busy one among them.
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(seen.some((s) => s.batchSize === 1)).toBe(true);
    // Idle: one snapshot per IDLE_SNAPSHOT_REFRESH_MS (100 ms), not one per step.
    const count = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 450));
    const idle = seen.slice(count);
    expect(idle.length).toBeGreaterThanOrEqual(2);
    expect(idle.length).toBeLessThanOrEqual(6);
    expect(idle.every((s) => s.batchSize === 0 && s.queueDepth === 0)).toBe(true);
  });
});
