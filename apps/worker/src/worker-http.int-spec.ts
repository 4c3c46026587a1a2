import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { eventually, metricSum, sharedCluster, sseData } from '@sluice/testing';

/**
 * worker.http: each instance of a real worker process serves vLLM's OpenAI API on its own port,
 * through the engine its bus requests run in. The official `openai` SDK is the client. The
 * cluster is the one the integration-shared project starts for the files that only observe
 * (libs/testing/src/shared-cluster.ts): two instances in one worker process, worker.http on.
 */
const cluster = sharedCluster();
/** The second instance (rank 1). */
const instanceUrl = cluster.instanceUrls[1]!;
const client = new OpenAI({ baseURL: `${instanceUrl}/v1`, apiKey: 'unused', maxRetries: 0 });

const workerUrl = () => cluster.services.find((s) => s.name === 'worker')!.url;

describe("a worker instance's own vLLM HTTP server", () => {
  it('answers completions and chat, streamed and not, with the official SDK', async () => {
    const completion = await client.completions.create({ model: 'qwen3-14b', prompt: 'Say hi', max_tokens: 6 });
    expect(completion.object).toBe('text_completion');
    expect(completion.usage).toMatchObject({ completion_tokens: 6, total_tokens: completion.usage!.prompt_tokens + 6 });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'length', text: expect.any(String) });

    const chat = await client.chat.completions.create({ model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });
    expect(chat.choices[0]?.message).toMatchObject({ role: 'assistant' });
    expect(chat.usage?.completion_tokens).toBe(4);

    const stream = await client.chat.completions.create({ model: 'qwen3-14b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.split(' ').filter(Boolean)).toHaveLength(5);
    expect(usage).toMatchObject({ completion_tokens: 5 });

    const streamed = await client.completions.create({ model: 'qwen3-14b', prompt: 'Hello', max_tokens: 3, stream: true });
    const pieces: string[] = [];
    for await (const chunk of streamed) pieces.push(chunk.choices[0]?.text ?? '');
    expect(pieces.filter(Boolean)).toHaveLength(3);
  });

  it("streams the gateway's SSE shapes: one chunk per token, usage null until the usage chunk, then [DONE]", async () => {
    const res = await fetch(`${instanceUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-14b', prompt: [1, 2, 3], max_tokens: 4, stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: unknown[]; usage: unknown });
    expect(chunks.slice(0, -1)).toHaveLength(4);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } });
  });

  it('lists its model, answers it by id, and 404s an id it does not serve', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['qwen3-14b']);
    expect(await client.models.retrieve('qwen3-14b')).toMatchObject({ id: 'qwen3-14b', object: 'model' });
    await expect(client.models.retrieve('gpt-9')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("refuses a bad body in OpenAI's error shape, naming the field", async () => {
    const res = await fetch(`${instanceUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: 'x', max_tokens: 'many' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens', code: 'invalid_request' });
  });

  it('answers /health, and /metrics with its own vllm:* series only', async () => {
    expect((await fetch(`${instanceUrl}/health`)).status).toBe(200);
    const page = await (await fetch(`${instanceUrl}/metrics`)).text();
    expect(page).toMatch(/^vllm:num_requests_running\{[^}]*engine="1"[^}]*\} /m);
    expect(page).not.toMatch(/engine="0"/);
    expect(page).not.toMatch(/^process_/m);
  });

  it("runs in the instance's own engine: the bus side sees the request running on that instance, and counts it finished", async () => {
    const finished = () => metricSum(workerUrl(), 'vllm:request_success_total', ['engine="1"']);
    const before = await finished();
    // Long enough to be seen running: 3 000 decode steps of ~1.4 ms at timeScale 10.
    const long = fetch(`${instanceUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: 'a long one', max_tokens: 3_000 }) });
    // The running gauge is the engine's batch (its load snapshot): the request is in rank 1's batch, and only there.
    const running = async (url: string, rank: number) => metricSum(url, 'vllm:num_requests_running', [`engine="${rank}"`]);
    await eventually(async () => (await running(instanceUrl, 1)) === 1 && (await running(workerUrl(), 1)) === 1 && (await running(workerUrl(), 0)) === 0, 5_000, "the request in rank 1's batch");
    const answer = (await (await long).json()) as { usage: { completion_tokens: number } };
    expect(answer.usage.completion_tokens).toBe(3_000);
    await eventually(async () => (await finished()) === before + 1, 2_000, 'the request counted finished on rank 1');
  });

  it('the gateway still routes to the same instances over the bus', async () => {
    const res = await fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: 'Hi', max_tokens: 2 }) });
    expect(res.status).toBe(200);
  });
});
