import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { metricSum as scrapedSum, metricValue as scrapedValue, postCompletion, runSluice } from '@sluice/testing';
import { hashApiKey } from './api-keys.js';

/**
 * gateway.auth against a real cluster: API keys kept as hashes in the config file, a tenant, an
 * objective and a rate limit per key, an admin key for what changes the cluster.
 */
const KEYS = { team: 'sk-team-a-0123456789abcdef', limited: 'sk-limited-fedcba9876543210', ops: 'sk-ops-00112233445566778899', scrape: 'sk-scrape-99887766554433221100' };

let cluster: LocalCluster;
let flowController: string;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-auth-')), 'sluice.yaml');
  writeFileSync(
    file,
    [
      'inferenceObjectives: [{ name: premium, priority: 10 }, { name: bulk, priority: -5 }]',
      'gateway:',
      '  auth:',
      '    keys:',
      `      - { id: team-a, hash: "${hashApiKey(KEYS.team)}", tenant: tenant-a, objective: premium }`,
      `      - { id: limited, hash: "${hashApiKey(KEYS.limited)}", tenant: tenant-b, sloClass: sheddable, rateLimit: { requestsPerSecond: 0.2, burst: 2 } }`,
      `      - { id: ops, hash: "${hashApiKey(KEYS.ops)}", tenant: ops, admin: true }`,
      `      - { id: prometheus, hash: "${hashApiKey(KEYS.scrape)}", tenant: prometheus, metrics: true }`,
    ].join('\n'),
  );
  cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--config', file, '--worker.timeScale=100', '--worker.instances=1'], parallel: true });
  flowController = cluster.services.find((s) => s.name === 'flow-controller')!.url;
});

afterAll(async () => {
  await cluster?.stop();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
// The gateway's /metrics needs a scrape key under gateway.auth; the flow controller's does not.
const withKey = (url: string) => (url === cluster.gatewayUrl ? bearer(KEYS.scrape) : {});
const metricSum = (url: string, name: string, labels: string | readonly string[] = '') => scrapedSum(url, name, labels, withKey(url));
const metricValue = (url: string, name: string, labels = '') => scrapedValue(url, name, labels, withKey(url));
const json = (res: Response): Promise<any> => res.json();
const count = (reason: string) => metricValue(cluster.gatewayUrl, 'sluice_requests_total', `reason="${reason}"`);

describe('without a valid key', () => {
  it.each([
    ['no Authorization header', {}, /^You didn't provide an API key/],
    ['a key no hash matches', bearer('sk-not-a-key'), /^Incorrect API key provided/],
    ['another scheme', { authorization: `Basic ${KEYS.team}` }, /^You didn't provide an API key/],
    ['the hash itself', bearer(hashApiKey(KEYS.team)), /^Incorrect API key provided/],
  ])('answers 401 as OpenAI does: %s', async (_, headers, message) => {
    const before = await count('invalid_api_key');
    const res = await postCompletion(cluster.gatewayUrl, { prompt: 'x', max_tokens: 1 }, { headers });
    expect(res.status).toBe(401);
    const body = await json(res);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    expect(body.error.message).toMatch(message);
    expect(res.headers.get('x-request-dropped-reason')).toBe('invalid_api_key');
    expect(await count('invalid_api_key')).toBe(before + 1);
  });

  it('answers 401 to 300 generated Authorization values, 200 only to a Bearer of a configured key', async () => {
    const latin1 = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 200 });
    const values = fc.sample(
      fc.oneof(
        latin1,
        latin1.map((s) => `Bearer ${s}`),
        // Not the rate-limited key: its bucket is the later test's.
        fc.constantFrom(KEYS.team, KEYS.ops).chain((key) =>
          fc.constantFrom(`Bearer ${key}`, `bearer ${key}`, `Bearer  ${key} `, `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, `Bearer ${key.toUpperCase()}`, `Bearer\t${key}`, `Token ${key}`, key, `Bearer ${key},Bearer ${key}`),
        ),
      ),
      300,
    );
    const names = (authorization: string) => /^bearer +/i.test(authorization) && [KEYS.team, KEYS.ops].includes(authorization.replace(/^bearer +/i, '').replace(/ +$/, ''));
    const statuses = await Promise.all(
      values.map(async (authorization) => {
        const res = await postCompletion(cluster.gatewayUrl, { prompt: [1], max_tokens: 1 }, { headers: { authorization } });
        const body = await json(res);
        return { authorization, status: res.status, code: body.error?.code };
      }),
    );
    const wrong = statuses.filter(({ authorization, status, code }) => (names(authorization) ? status !== 200 : status !== 401 || code !== 'invalid_api_key'));
    expect(wrong).toEqual([]);
    expect(statuses.filter((s) => s.status === 200).length).toBeGreaterThan(0);
  });

  it('is refused the framework routes and /metrics too, but not health and readiness', async () => {
    expect((await fetch(`${cluster.gatewayUrl}/v1/models`)).status).toBe(401);
    expect((await json(await fetch(`${cluster.gatewayUrl}/busy_threshold`))).error.code).toBe('invalid_api_key');
    // Every spelling the framework would route to the page.
    for (const path of ['/metrics', '/METRICS', '/metrics/', '/metrics?x=1']) {
      const res = await fetch(`${cluster.gatewayUrl}${path}`);
      expect(res.status, path).toBe(401);
      expect((await json(res)).error, path).toMatchObject({ code: 'invalid_api_key' });
    }
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${cluster.gatewayUrl}${path}`)).status, path).toBe(200);
    // A request line in absolute form, which the framework routes by its path.
    const absolute = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(cluster.gatewayUrl).port), '127.0.0.1', () => socket.write(`GET ${cluster.gatewayUrl}/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answer));
    });
    expect(absolute).toMatch(/^HTTP\/1\.1 401 /);
    expect(absolute).not.toContain('sluice_requests_total');
  });
});

describe('with a key', () => {
  it('schedules the request as the key says, whatever its headers say', async () => {
    const queuedBefore = await metricSum(flowController, 'inference_extension_flow_control_request_queue_duration_seconds_count', 'fairness_id="tenant-a"');
    const res = await postCompletion(
      cluster.gatewayUrl,
      { prompt: 'x', max_tokens: 2 },
      {
        headers: {
          ...bearer(KEYS.team),
          'x-sluice-report-timings': '1',
          'x-gateway-inference-fairness-id': 'someone-else',
          'x-gateway-inference-objective': 'bulk',
          'x-sluice-slo-class': 'background',
          // Not read with a key, so not refused either.
          'x-slo-ttft-ms': 'Infinity',
        },
      },
    );
    expect(res.status).toBe(200);
    expect((await json(res)).sluice.priority).toBe(10);
    expect(await metricSum(flowController, 'inference_extension_flow_control_request_queue_duration_seconds_count', 'fairness_id="tenant-a"')).toBe(queuedBefore + 1);
    expect(await metricSum(flowController, 'inference_extension_flow_control_request_queue_duration_seconds_count', 'fairness_id="someone-else"')).toBe(0);

    const limited = await postCompletion(cluster.gatewayUrl, { prompt: 'x', max_tokens: 1 }, { headers: { ...bearer(KEYS.limited), 'x-sluice-report-timings': '1', 'x-sluice-slo-class': 'critical' } });
    expect((await json(limited)).sluice.priority).toBe(-2);
  });

  it('serves /metrics only to a scrape or admin key: a tenant key gets 403 and none of the page', async () => {
    const tenant = await fetch(`${cluster.gatewayUrl}/metrics`, { headers: bearer(KEYS.team) });
    expect(tenant.status).toBe(403);
    const refusal = await tenant.text();
    expect(JSON.parse(refusal).error).toMatchObject({ code: 'insufficient_permissions', message: expect.stringMatching(/metrics: true or admin: true.*"team-a"/) });
    expect(refusal).not.toContain('sluice_requests_total');
    for (const key of [KEYS.scrape, KEYS.ops]) {
      const res = await fetch(`${cluster.gatewayUrl}/metrics`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('sluice_requests_total');
    }
  });

  it('refuses a forged admin write even with an admin key: text/plain (415) and a foreign Origin (403)', async () => {
    const write = (headers: Record<string, string>) =>
      fetch(`${cluster.gatewayUrl}/busy_threshold`, { method: 'POST', headers: { ...bearer(KEYS.ops), ...headers }, body: JSON.stringify({ model: 'qwen3-14b', active_decode_blocks_threshold: 0 }) });
    expect((await write({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await write({ 'content-type': 'application/json', origin: 'https://evil.example' })).status).toBe(403);
    const list = await json(await fetch(`${cluster.gatewayUrl}/busy_threshold`, { headers: bearer(KEYS.ops) }));
    expect(list.thresholds.find((t: { model: string }) => t.model === 'qwen3-14b')?.active_decode_blocks_threshold ?? null).not.toBe(0);
  });

  it('serves the framework routes, and POST /busy_threshold only to an admin key', async () => {
    expect((await fetch(`${cluster.gatewayUrl}/v1/models`, { headers: bearer(KEYS.team) })).status).toBe(200);
    expect((await fetch(`${cluster.gatewayUrl}/busy_threshold`, { headers: bearer(KEYS.team) })).status).toBe(200);
    const update = (headers: Record<string, string>) =>
      fetch(`${cluster.gatewayUrl}/busy_threshold`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'qwen3-14b', active_decode_blocks_threshold: 0.9 }) });
    expect((await update({})).status).toBe(401);
    const forbidden = await update(bearer(KEYS.team));
    expect(forbidden.status).toBe(403);
    expect((await json(forbidden)).error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'insufficient_permissions', message: expect.stringMatching(/needs an admin key.*"team-a"/) });
    const allowed = await update(bearer(KEYS.ops));
    expect(allowed.status).toBe(200);
    expect(await json(allowed)).toMatchObject({ model: 'qwen3-14b', active_decode_blocks_threshold: 0.9 });
  });

  it('refuses a key over its rate limit with 429 and when to retry, and counts requests and tokens per key id', async () => {
    // The bucket holds 2 and the earlier test took 1; at 0.2/s it has not refilled a whole request since (5 s).
    const requests = await Promise.all([1, 2].map(() => postCompletion(cluster.gatewayUrl, { prompt: [1, 2, 3], max_tokens: 2 }, { headers: bearer(KEYS.limited) })));
    const statuses = requests.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429]);
    const refused = requests.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toMatch(/^[1-5]$/);
    expect((await json(refused)).error).toMatchObject({ type: 'rate_limit_exceeded', code: 'api_key_rate_limited', message: expect.stringMatching(/"limited" is over its rate limit of 0.2 requests\/s \(burst 2\)/) });
    await requests.find((r) => r.status === 200)!.text();
    expect(await count('api_key_rate_limited')).toBe(1);
    // The Endpoint Picker's error count: a 429 is ResourceExhausted, under both names.
    for (const name of ['inference_objective_request_error_total', 'llm_d_epp_request_error_total']) {
      expect(await metricSum(cluster.gatewayUrl, name, 'error_code="ResourceExhausted"'), name).toBe(1);
    }

    const perKey = (labels: string[]) => metricSum(cluster.gatewayUrl, 'sluice_gateway_api_key_requests_total', labels);
    expect(await perKey(['key_id="limited"', 'outcome="completed"'])).toBe(2);
    expect(await perKey(['key_id="limited"', 'outcome="rejected"'])).toBe(1);
    expect(await metricSum(cluster.gatewayUrl, 'sluice_gateway_api_key_tokens_total', ['key_id="limited"', 'kind="completion"'])).toBe(1 + 2);
    expect(await metricSum(cluster.gatewayUrl, 'sluice_gateway_api_key_tokens_total', ['key_id="limited"', 'kind="prompt"'])).toBeGreaterThan(3);
  });

  it('lets `sluice run` send a workload with the key in OPENAI_API_KEY', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-auth-run-'));
    const workload = join(dir, 'workload.yaml');
    writeFileSync(
      workload,
      ['seed: 1', 'aggregate_rate: 50', 'num_requests: 6', 'clients:', '  - { id: c, tenant_id: acme, slo_class: standard, rate_fraction: 1, arrival: { process: poisson },',
        '      input_distribution: { type: constant, params: { value: 16 } }, output_distribution: { type: constant, params: { value: 2 } } }'].join('\n'),
    );
    const completed = () => metricSum(cluster.gatewayUrl, 'sluice_gateway_api_key_requests_total', ['key_id="team-a"', 'outcome="completed"']);
    const before = await completed();
    const run = await runSluice(['run', workload, '--gateway', cluster.gatewayUrl, '--out', join(dir, 'out'), '--json'], { env: { OPENAI_API_KEY: KEYS.team } });
    expect(run.code, run.stderr).toBe(0);
    expect(await completed()).toBe(before + 6);
  });

  it('shows key ids in /metrics, never a key or its hash, and the books balance', async () => {
    const text = await (await fetch(`${cluster.gatewayUrl}/metrics`, { headers: bearer(KEYS.scrape) })).text();
    expect(text).toContain('key_id="team-a"');
    for (const key of Object.values(KEYS)) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(hashApiKey(key).slice('sha256:'.length));
    }
    const received = await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(received);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')).toBe(0);
  });
});
