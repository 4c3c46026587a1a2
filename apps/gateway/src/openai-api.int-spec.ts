import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { monotonicMs, sendStamp } from '@sluice/bus';
import { eventually, metricSum, sharedCluster, sseData, SHARED_GATEWAY_MAX_TOKENS } from '@sluice/testing';

/**
 * The OpenAI-compatible surface against a real cluster: nats-server and the five services as
 * child processes, exactly as `npm start` runs them. The cluster is the one the integration-shared
 * project starts for the files that only observe (libs/testing/src/shared-cluster.ts): its gateway
 * caps output lengths, so a chat request that gives none runs to the cap, not the context's 40k.
 * Counters are read as differences, since other files send requests to the same gateway.
 */
const cluster = sharedCluster();
const OUTPUT_CAP = SHARED_GATEWAY_MAX_TOKENS;

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${cluster.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// Test-side reads of OpenAI-shaped JSON: the assertions are the type check.
const json = (res: Response): Promise<any> => res.json();

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${cluster.gatewayUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('POST /v1/completions', () => {
  it('streams one chunk per token in OpenAI SSE format, then [DONE]', async () => {
    const res = await post('/v1/completions', { model: 'qwen3-14b', prompt: 'Hello', max_tokens: 16, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks).toHaveLength(16);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'text_completion', model: 'qwen3-14b', choices: [{ index: 0, text: expect.any(String) }] });
      expect(chunk.id).toBe(chunks[0].id);
    }
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('length');
  });

  it('returns one completion object with usage when not streaming', async () => {
    const res = await post('/v1/completions', { model: 'qwen3-14b', prompt: 'Hello there, general', max_tokens: 5 });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ object: 'text_completion', model: 'qwen3-14b', choices: [{ index: 0, finish_reason: 'length' }] });
    expect(body.usage.completion_tokens).toBe(5);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + 5);
  });

  it('takes a prompt of token ids, and counts exactly that many prompt tokens', async () => {
    const prompt = Array.from({ length: 37 }, (_, i) => (i * 7919) % 128000);
    const body = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt, max_tokens: 3 }));
    expect(body.usage).toMatchObject({ prompt_tokens: 37, completion_tokens: 3, total_tokens: 40 });
  });

  it("reports the prompt tokens the serving instance found in its prefix cache, in OpenAI's usage.prompt_tokens_details", async () => {
    const prompt = Array.from({ length: 64 }, (_, i) => 90_000 + i);
    const first = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt, max_tokens: 1 }));
    expect(first.usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    // Routing need not send the same prompt to the same instance: one of a few repeats finds it cached.
    const cached: number[] = [];
    for (let i = 0; i < 4; i++) cached.push((await json(await post('/v1/completions', { model: 'qwen3-14b', prompt, max_tokens: 1 }))).usage.prompt_tokens_details.cached_tokens);
    const hit = cached.find((n) => n > 0);
    expect(hit, `cached tokens of the repeats: ${cached.join(', ')}`).toBeDefined();
    // Whole blocks of 16, and never the whole prompt: the last token is always computed.
    expect(hit! % 16).toBe(0);
    expect(hit!).toBeLessThan(64);
  });

  it('adds a usage chunk when stream_options.include_usage is set', async () => {
    const res = await post('/v1/completions', { model: 'qwen3-14b', prompt: [1, 2, 3, 4], max_tokens: 2, stream: true, stream_options: { include_usage: true } });
    const events = sseData(await res.text());
    const usage = JSON.parse(events.at(-2)!);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('tells a load generator where and how its request was served, only when asked (x-sluice-report-timings)', async () => {
    const ask = { 'x-sluice-report-timings': '1', 'x-sluice-slo-class': 'critical' };
    const streamed = sseData(await (await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2, stream: true }, ask)).text());
    const last = JSON.parse(streamed.at(-2)!);
    expect(last.choices).toEqual([]);
    expect(last.sluice).toMatchObject({ instance: expect.any(String), priority: 4 });
    for (const stage of ['admissionMs', 'flowQueueMs', 'routingMs', 'workerQueueMs', 'prefillMs', 'decodeMs']) expect(last.sluice.timings[stage], stage).toBeGreaterThanOrEqual(0);
    const body = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2 }, ask));
    expect(body.sluice.instance).toEqual(expect.any(String));
    expect(body.sluice.timings.prefillMs).toBeGreaterThan(0);
    // Without the header, nothing beyond OpenAI's shapes.
    expect((await json(await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2 }))).sluice).toBeUndefined();
    const plain = sseData(await (await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2, stream: true })).text());
    expect(plain.some((e) => e.includes('"sluice"'))).toBe(false);
  });

  it('times the client\'s own send from its stamp on this host\'s clock (x-sluice-sent-at), and ignores another host\'s', async () => {
    const ask = { 'x-sluice-report-timings': '1' };
    // Stamped 40 ms ago on this host's clock: the send took at least those 40 ms.
    const here = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2 }, { ...ask, 'x-sluice-sent-at': sendStamp(monotonicMs() - 40) }));
    expect(here.sluice.timings.clientSendMs).toBeGreaterThanOrEqual(40);
    expect(here.sluice.timings.gatewayInMs).toBeGreaterThanOrEqual(0);
    const elsewhere = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2 }, { ...ask, 'x-sluice-sent-at': '12.5@anotherhost' }));
    expect(elsewhere.sluice.timings.clientSendMs).toBeUndefined();
    const bad = await post('/v1/completions', { model: 'qwen3-14b', prompt: [5, 6, 7], max_tokens: 2 }, { ...ask, 'x-sluice-sent-at': 'yesterday' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.param).toBe('x-sluice-sent-at');
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers with a chat completion', async () => {
    const res = await post('/v1/chat/completions', { model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.role).toBe('assistant');
    expect(body.choices[0].message.content.length).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBe(4);
  });

  it('streams chat chunks: a role delta, then one content delta per token', async () => {
    const res = await post('/v1/chat/completions', { model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3, stream: true });
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.slice(1)).toHaveLength(3);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
  });
});

describe('GET /v1/models', () => {
  it('lists the configured models', async () => {
    const body = await json(await fetch(`${cluster.gatewayUrl}/v1/models`));
    expect(body).toMatchObject({ object: 'list', data: [{ id: 'qwen3-14b', object: 'model' }] });
  });

  it('answers one model by id, and 404 in OpenAI\'s error shape for an id not served', async () => {
    const client = new OpenAI({ baseURL: `${cluster.gatewayUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    expect(await client.models.retrieve('qwen3-14b')).toMatchObject({ id: 'qwen3-14b', object: 'model', owned_by: 'sluice' });
    const missing = await fetch(`${cluster.gatewayUrl}/v1/models/gpt-9`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ error: { message: expect.stringContaining('gpt-9'), type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
    await expect(client.models.retrieve('gpt-9')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('bad input', () => {
  const cases: [string, unknown, RegExp, string | null][] = [
    ['unknown model', { model: 'gpt-9', prompt: 'x' }, /model: unknown model "gpt-9"; available: qwen3-14b/, 'model'],
    ['missing prompt', { model: 'qwen3-14b' }, /^prompt: /, 'prompt'],
    ['missing model', { prompt: 'x' }, /^model: /, 'model'],
    ['max_tokens of the wrong type', { model: 'qwen3-14b', prompt: 'x', max_tokens: 'many' }, /^max_tokens: /, 'max_tokens'],
    ['token ids out of range', { model: 'qwen3-14b', prompt: [1, -5] }, /^prompt/, 'prompt'],
    ['a body that is not an object', [1, 2], /JSON object/, null],
    ['a request longer than the context', { model: 'qwen3-14b', prompt: [1], max_tokens: 50_000 }, /exceeds the context/, 'max_tokens'],
  ];
  it.each(cases)('answers 400 naming the field: %s', async (_, body, message, param) => {
    const res = await post('/v1/completions', body);
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.message).toMatch(message);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe(param);
  });

  it('answers 400 to bad JSON', async () => {
    const res = await post('/v1/completions', '{"model": ');
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/not valid JSON/);
  });

  it('answers 400 to chat without messages', async () => {
    const res = await post('/v1/chat/completions', { model: 'qwen3-14b', messages: [] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.param).toBe('messages');
  });
});

describe('OpenAI and vLLM conventions', () => {
  it('streams "usage": null on every chunk but the last when include_usage is set, and no usage key otherwise', async () => {
    const body = { model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3, stream: true };
    const withUsage = sseData(await (await post('/v1/chat/completions', { ...body, stream_options: { include_usage: true } })).text());
    const chunks = withUsage.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.slice(0, -1).length).toBeGreaterThanOrEqual(4); // the role, three tokens
    for (const chunk of chunks.slice(0, -1)) expect(chunk).toHaveProperty('usage', null);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 3 } });
    const without = sseData(await (await post('/v1/chat/completions', body)).text()).slice(0, -1).map((e) => JSON.parse(e));
    for (const chunk of without) expect(chunk).not.toHaveProperty('usage');
  });

  it('runs a chat request with no max_tokens to the output cap (vLLM: the context left), a completion to 16', async () => {
    const chat = await json(await post('/v1/chat/completions', { model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }] }));
    expect(chat.usage.completion_tokens).toBe(OUTPUT_CAP);
    expect(chat.choices[0].finish_reason).toBe('length');
    const completion = await json(await post('/v1/completions', { model: 'qwen3-14b', prompt: 'Hi' }));
    expect(completion.usage.completion_tokens).toBe(16);
  });
});

describe('the official openai SDK', () => {
  it('completes a non-streaming and a streaming request', async () => {
    const client = new OpenAI({ baseURL: `${cluster.gatewayUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const completion = await client.completions.create({ model: 'qwen3-14b', prompt: 'Say hi', max_tokens: 6 });
    expect(completion.usage?.completion_tokens).toBe(6);
    expect(completion.choices[0]?.text.length).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({ model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text.split(' ').filter(Boolean)).toHaveLength(5);
    expect(finish).toBe('length');
  });
});

describe('accounting', () => {
  it('counts every request once, by terminal outcome and reason', async () => {
    const completedBefore = await metric('sluice_requests_total', 'outcome="completed",reason="ok"');
    const invalidBefore = await metric('sluice_requests_total', 'outcome="rejected",reason="invalid_request"');
    const receivedBefore = await metric('sluice_requests_received_total', 'endpoint="/v1/completions"');
    await Promise.all([
      post('/v1/completions', { model: 'qwen3-14b', prompt: 'a', max_tokens: 1 }).then((r) => r.text()),
      post('/v1/completions', { model: 'qwen3-14b', prompt: 'b', max_tokens: 2 }).then((r) => r.text()),
      post('/v1/completions', { model: 'nope', prompt: 'c' }).then((r) => r.text()),
    ]);
    expect(await metric('sluice_requests_total', 'outcome="completed",reason="ok"')).toBe(completedBefore + 2);
    expect(await metric('sluice_requests_total', 'outcome="rejected",reason="invalid_request"')).toBe(invalidBefore + 1);
    expect(await metric('sluice_requests_received_total', 'endpoint="/v1/completions"')).toBe(receivedBefore + 3);
    expect(await metric('sluice_requests_in_flight', '')).toBe(0);
  });

  it('counts each request for the Endpoint Picker at its end: the model pair, the error code of a failure, answer sizes and tokens', async () => {
    const total = () => metricSum(cluster.gatewayUrl, 'inference_objective_request_total', ['model_name="qwen3-14b"', 'target_model_name="qwen3-14b"']);
    const current = () => metricSum(cluster.gatewayUrl, 'llm_d_epp_request_total', ['model_name="qwen3-14b"', 'fairness_id="default"']);
    const badBefore = await metricSum(cluster.gatewayUrl, 'inference_objective_request_error_total', 'error_code="BadRequest"');
    const outputTokens = () => metricSum(cluster.gatewayUrl, 'llm_d_epp_request_output_tokens_sum', 'model_name="qwen3-14b"');
    const sizes = () => metricSum(cluster.gatewayUrl, 'inference_objective_response_sizes_sum');
    const [totalBefore, currentBefore, tokensBefore, sizesBefore] = [await total(), await current(), await outputTokens(), await sizes()];
    await post('/v1/completions', { model: 'qwen3-14b', prompt: 'a', max_tokens: 3 }).then((r) => r.text());
    await post('/v1/completions', { model: 'nope', prompt: 'c' }).then((r) => r.text());
    expect(await total()).toBe(totalBefore + 1);
    expect(await current()).toBe(currentBefore + 1);
    expect(await metricSum(cluster.gatewayUrl, 'inference_objective_request_error_total', 'error_code="BadRequest"')).toBe(badBefore + 1);
    expect(await metricSum(cluster.gatewayUrl, 'inference_objective_running_requests')).toBe(0);
    expect(await outputTokens()).toBeGreaterThanOrEqual(tokensBefore + 3);
    expect(await sizes()).toBeGreaterThan(sizesBefore);
  });

  it('counts HTTP requests as vLLM\'s API server does: by route, method and status class, not health or metrics', async () => {
    const models = () => metricSum(cluster.gatewayUrl, 'http_requests_total', ['handler="/v1/models"', 'method="GET"', 'status="2xx"']);
    const unmatched = () => metricSum(cluster.gatewayUrl, 'http_requests_total', ['handler="none"', 'status="4xx"']);
    const timed = () => metricSum(cluster.gatewayUrl, 'http_request_duration_highr_seconds_count');
    const [before, unmatchedBefore, timedBefore] = [await models(), await unmatched(), await timed()];
    expect((await fetch(`${cluster.gatewayUrl}/v1/models`)).status).toBe(200);
    await eventually(async () => (await models()) === before + 1, 2_000, '/v1/models counted');
    expect((await fetch(`${cluster.gatewayUrl}/no/such/route`)).status).toBe(404);
    await eventually(async () => (await unmatched()) === unmatchedBefore + 1, 2_000, 'an unmatched path counted as none');
    const page = await (await fetch(`${cluster.gatewayUrl}/metrics`)).text();
    expect(page).not.toMatch(/http_requests_total\{handler="\/(metrics|healthz|readyz)"/);
    expect(await timed()).toBeGreaterThan(timedBefore);
  });

  it('serves /healthz, /readyz and /metrics on every service', async () => {
    for (const service of cluster.services) {
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
    }
  });
});
