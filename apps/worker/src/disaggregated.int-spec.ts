import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_DETECTION_ARGS, FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, parseExposition, postCompletion, readMetricsDoc, streamCompletion, type StreamedAnswer } from '@sluice/testing';

/**
 * Disaggregated prefill/decode on real processes and a real nats-server (docs/behaviour.md §1):
 * two worker processes, each with one prefill and one decode instance, every prompt prefilled
 * remotely (`always`), over a link slowed to 1.5 s a transfer so that a transfer is long enough
 * to be cut. The prompts are token arrays of 200 tokens: 12 full blocks move per request.
 */
const TRANSFER_US = 1_500_000;
const PROMPT_TOKENS = 200;
const BLOCKS = Math.floor(PROMPT_TOKENS / 16);

let nextToken = 1;
const prompt = () => Array.from({ length: PROMPT_TOKENS }, () => nextToken++ % 128_000);

describe('disaggregated prefill/decode on a live cluster', () => {
  let cluster: LocalCluster;
  const workers = () => cluster.services.filter((s) => s.name === 'worker').map((s) => s.url);
  const sumOverWorkers = async (name: string, labels = '') => (await Promise.all(workers().map((url) => metricSum(url, name, labels)))).reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        ...FAST_DETECTION_ARGS,
        '--worker.processes=2',
        '--worker.instances=2',
        '--worker.roles.prefill=1',
        '--worker.roles.decode=1',
        `--worker.kvTransfer={setupUs: ${TRANSFER_US}, perBlockUs: 0, bandwidthBytesPerSecond: 1000000000000}`,
        '--router.disaggregation.decider=always',
        '--router.policy=least-loaded',
      ],
      warmUpRequests: 0,
    });
  });
  afterAll(() => cluster?.stop());

  it('runs each prompt on a prefill instance and decodes on a decode instance, its blocks moved between them', async () => {
    const count = 6;
    const answers = await Promise.all(Array.from({ length: count }, () => postCompletion(cluster.gatewayUrl, { prompt: prompt(), max_tokens: 4 })));
    for (const answer of answers) expect(answer.status).toBe(200);
    // Rank 0 of each process prefills, rank 1 decodes.
    expect(await sumOverWorkers('vllm:prompt_tokens_total', 'engine="0"')).toBe(count * PROMPT_TOKENS);
    expect(await sumOverWorkers('vllm:generation_tokens_total', 'engine="1"')).toBe(count * 4);
    expect(await sumOverWorkers('vllm:generation_tokens_total', 'engine="0"')).toBe(count); // each job's one sampled token
    // Every transfer landed on a decode instance, as vLLM's NIXL metrics count them there.
    expect(await sumOverWorkers('vllm:nixl_xfer_time_seconds_count', 'engine="1"')).toBe(count);
    // Setup, then 12 blocks of Qwen3-14B's 2.5 MiB over 1 TB/s (31.5 µs).
    const wireSeconds = (BLOCKS * 2 * 40 * 8 * 128 * 2 * 16) / 1e12;
    expect(await sumOverWorkers('vllm:nixl_xfer_time_seconds_sum')).toBeCloseTo(count * (TRANSFER_US / 1e6 + wireSeconds), 6);
    expect(await sumOverWorkers('vllm:nixl_num_descriptors_sum')).toBe(count * BLOCKS);
    expect(await sumOverWorkers('vllm:prompt_tokens_by_source_total', 'source="external_kv_transfer"')).toBe(count * BLOCKS * 16);
    expect(await sumOverWorkers('vllm:external_prefix_cache_hits_total')).toBe(count * BLOCKS * 16);
    expect(await sumOverWorkers('vllm:nixl_num_failed_transfers_total')).toBe(0);
  });

  it('exposes every family docs/metrics.md says only a disaggregated worker has, with the documented type and labels', async () => {
    const families = parseExposition(await (await fetch(`${workers()[0]}/metrics`)).text());
    const rows = readMetricsDoc().filter((row) => row.disaggregatedOnly);
    expect(rows.length).toBeGreaterThanOrEqual(7);
    const wrong = rows.flatMap((row) => {
      const family = families.get(row.name);
      if (!family) return [`${row.name}: not exposed`];
      const labels = [...family.labels].filter((l) => l !== 'service' && l !== 'instance_id').sort().join();
      return family.type === row.type && labels === [...row.labels].sort().join() ? [] : [`${row.name}: ${family.type} [${labels}], documented ${row.type} [${row.labels.join()}]`];
    });
    expect(wrong).toEqual([]);
  });

  it('a decode worker killed mid-transfer: its requests migrate like any other and complete whole', async () => {
    const maxTokens = 8;
    const count = 8;
    const streams: Promise<StreamedAnswer>[] = Array.from({ length: count }, () => streamCompletion(cluster.gatewayUrl, { prompt: prompt(), max_tokens: maxTokens }));
    // Prefilled within ~50 ms, then 1.5 s of transfer: at 600 ms every request is mid-transfer.
    await new Promise((resolve) => setTimeout(resolve, 600));
    cluster.signal('worker-1', 'SIGKILL');
    const answers = await Promise.all(streams);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.errorCode).toBeUndefined();
      expect(answer.pieces).toHaveLength(maxTokens);
      expect(answer.completionTokens).toBe(maxTokens);
    }
    // Half of them decoded on worker-1's decode instance; each moved once, before its first token.
    const migrated = await metricSum(cluster.gatewayUrl, 'sluice_migrations_total', 'reason="worker_lost"');
    expect(migrated).toBeGreaterThanOrEqual(1);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="worker_lost"')).toBe(0);
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total'));
  });
});
