import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_WORKERS_BUSY_BODY } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, postCompletion, runSluice, natsArgsAs } from '@sluice/testing';

/** Admission policies through the real gateway, on a real cluster. */

/** A prompt of `n` fresh token ids (no prefix shared with other requests of the test). */
let nextId = 1;
const prompt = (n: number) => Array.from({ length: n }, () => nextId++ % 128_000);

function complete(url: string, body: object): Promise<Response> {
  return postCompletion(url, { max_tokens: 1, ...body });
}

const serviceUrl = (cluster: LocalCluster, name: string) => cluster.services.find((s) => s.name === name)!.url;

/** The built CLI, as a user runs it, pointed at the cluster's NATS. */
const sluice = (cluster: LocalCluster, ...argv: string[]) => runSluice([...argv, ...natsArgsAs(cluster, 'control')]);

describe('token-bucket admission', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // Refill 1 token/s: the burst's count must not depend on how fast this machine sends it.
      configArgs: [...FREE_PORT_ARGS, '--admission.policy=token-bucket', '--admission.policies.token-bucket.refillRate=1', '--worker.instances=2', '--worker.timeScale=50'],
    });
  });
  afterAll(() => cluster?.stop());

  it('admits exactly 19 of a burst of 40 512-token requests (capacity 10000) and rejects 21 with 429', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => complete(cluster.gatewayUrl, { prompt: prompt(512) })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(statuses.filter((s) => s === 429)).toHaveLength(21);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as { error?: { message: string; type: string; code: string } }[];
    const rejected = bodies[statuses.indexOf(429)]!;
    expect(rejected.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'insufficient_tokens' });
    expect(rejected.error?.message).toMatch(/^insufficient tokens/);
    // retry-after is the bucket's refill time to the request's cost (1 token/s), whole seconds up.
    const held = Number(/the bucket holds ([0-9.]+)/.exec(rejected.error!.message)![1]);
    const retryAfter = Number(answers[statuses.indexOf(429)]!.headers.get('retry-after'));
    expect([Math.ceil(512 - held - 0.05), Math.ceil(512 - held + 0.05)]).toContain(retryAfter);

    // The books balance: requests = admitted + rejected, at the gateway and in admission.
    const admission = serviceUrl(cluster, 'admission');
    expect(await metricValue(admission, 'sluice_admission_decisions_total', 'decision="admit"')).toBe(19);
    expect(await metricValue(admission, 'sluice_admission_decisions_total', 'reason="insufficient_tokens"')).toBe(21);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="completed",reason="ok"')).toBe(19);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="rejected",reason="insufficient_tokens"')).toBe(21);
    const level = await metricValue(admission, 'sluice_admission_token_bucket_level');
    expect(level).toBeGreaterThanOrEqual(0);
    expect(level).toBeLessThan(512);
  });

  it('changes policy and parameters at run time from the CLI, effective on the next request', async () => {
    const admission = serviceUrl(cluster, 'admission');
    const rejectAll = await sluice(cluster, 'admission', 'set', 'reject-all');
    expect(rejectAll.code).toBe(0);
    expect(rejectAll.stdout).toMatch(/^policy\s+reject-all/);
    const refused = await complete(cluster.gatewayUrl, { prompt: prompt(16) });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('rejected by policy');
    expect(await metricValue(admission, 'sluice_admission_policy_info', 'policy="reject-all"')).toBe(1);

    // A fresh bucket of 600 tokens: one 512-token request fits, the next does not.
    const small = await sluice(cluster, 'admission', 'set', 'token-bucket', 'capacity=600', 'refillRate=1', '--json');
    expect(JSON.parse(small.stdout)).toEqual({ policy: 'token-bucket', params: { capacity: 600, refillRate: 1 } });
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(512) })).status).toBe(200);
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(512) })).status).toBe(429);
    expect(await metricValue(admission, 'sluice_admission_policy_param', 'param="capacity"')).toBe(600);

    const bad = await sluice(cluster, 'admission', 'set', 'token-bucket', 'capacity=-5');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('params.capacity');

    // A chain: the busy check (no threshold set: admits), then a fresh 600-token bucket, named by its check.
    const chain = await sluice(cluster, 'admission', 'set', 'busy-threshold,token-bucket', 'token-bucket.capacity=600', 'token-bucket.refillRate=1', '--json');
    expect(chain.code).toBe(0);
    expect(JSON.parse(chain.stdout)).toEqual({ policy: 'busy-threshold,token-bucket', params: { 'busy-threshold': { models: {} }, 'token-bucket': { capacity: 600, refillRate: 1 } } });
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(512) })).status).toBe(200);
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(512) })).status).toBe(429);
    expect(await metricValue(admission, 'sluice_admission_policy_info', 'policy="token-bucket",position="2"')).toBe(1);
    const unnamed = await sluice(cluster, 'admission', 'set', 'capacity=5');
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('name the check, e.g. token-bucket.capacity');
    const twice = await sluice(cluster, 'admission', 'set', 'token-bucket,token-bucket');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('"token-bucket" is listed twice');

    expect((await sluice(cluster, 'admission', 'set', 'always-admit')).code).toBe(0);
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(512) })).status).toBe(200);
    expect((await sluice(cluster, 'admission', 'get')).stdout).toMatch(/^policy\s+always-admit/);
  });
});

describe('busy-threshold admission', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // Two data-parallel ranks in one worker; snapshots on every change, so busy shows at once.
      // Dynamo's error bodies: the 503 below is its bare body, byte for byte.
      configArgs: [...FREE_PORT_ARGS, '--admission.policy=busy-threshold', '--worker.instances=2', '--worker.loadIntervalMs=0', '--gateway.errorBody=dynamo'],
    });
  });
  afterAll(() => cluster?.stop());

  const busyThreshold = (body?: object) =>
    fetch(`${cluster.gatewayUrl}/busy_threshold`, body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {});

  it('reads and sets thresholds with Dynamo’s /busy_threshold; bad values get 400 naming the field', async () => {
    expect(await (await busyThreshold()).json()).toEqual({
      thresholds: [{ model: 'qwen3-14b', active_decode_blocks_threshold: null, active_prefill_tokens_threshold: null }],
    });
    const bad = await busyThreshold({ model: 'qwen3-14b', active_decode_blocks_threshold: 1.5 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('active_decode_blocks_threshold');
    const unknown = await busyThreshold({ model: 'gpt-9', active_decode_blocks_threshold: 0.5 });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'model' });
  });

  it('answers 503 with Dynamo’s exact body (gateway.errorBody dynamo) and a retry-after once every rank of every worker is busy', async () => {
    // No threshold set: never busy.
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(64) })).status).toBe(200);

    const set = await busyThreshold({ model: 'qwen3-14b', active_decode_blocks_threshold: 0 });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ model: 'qwen3-14b', active_decode_blocks_threshold: 0, active_prefill_tokens_threshold: null });

    // Two long requests, one per rank (round-robin): each rank then holds decode blocks (> 0 of total).
    const long = [complete(cluster.gatewayUrl, { prompt: prompt(256), max_tokens: 150 }), complete(cluster.gatewayUrl, { prompt: prompt(256), max_tokens: 150 })];
    const admission = serviceUrl(cluster, 'admission');
    let shed: Response | undefined;
    await eventually(
      async () => {
        const res = await complete(cluster.gatewayUrl, { prompt: prompt(16) });
        if (res.status === 503) shed = res;
        else await res.text();
        return res.status === 503;
      },
      10_000,
      'a 503 while both ranks decode',
    );
    expect(await shed!.json()).toEqual(ALL_WORKERS_BUSY_BODY);
    expect(shed!.headers.get('retry-after')).toBe('1');
    expect(await metricValue(admission, 'dynamo_tasks_rejected_total', 'model="qwen3-14b"')).toBeGreaterThanOrEqual(1);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="rejected",reason="all_workers_busy"')).toBeGreaterThanOrEqual(1);

    // Clearing the threshold lifts the shedding at once, while the ranks are still busy.
    await busyThreshold({ model: 'qwen3-14b', active_decode_blocks_threshold: null });
    expect((await complete(cluster.gatewayUrl, { prompt: prompt(16) })).status).toBe(200);
    for (const res of await Promise.all(long)) expect(res.status).toBe(200);
  });
});
