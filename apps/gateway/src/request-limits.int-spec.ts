import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, postCompletion, sseData } from '@sluice/testing';

/**
 * What one request or one client may cost the gateway (gateway.limits, gateway.headersTimeoutMs),
 * against a real cluster with small limits: each refusal names the limit and its
 * value, each is counted, and nothing that entered is left without an outcome.
 */
let cluster: LocalCluster;
let port: number;

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [
      ...FREE_PORT_ARGS,
      '--worker.instances=1',
      '--gateway.requestTimeoutMs=20000',
      '--gateway.headersTimeoutMs=400',
      '--gateway.limits.maxBodyBytes=2Ki',
      '--gateway.limits.maxPromptTokens=64',
      '--gateway.limits.maxTokens=500',
      '--gateway.limits.maxStreamDurationMs=600',
      '--gateway.limits.maxConnectionsPerClient=6',
      // Low enough that a few loopback addresses fill it (127.0.0.0/8 is all loopback on Linux).
      '--gateway.limits.maxConnections=24',
    ],
    parallel: true,
  });
  port = Number(new URL(cluster.gatewayUrl).port);
});

afterAll(async () => {
  await cluster?.stop();
});

const json = (res: Response): Promise<any> => res.json();
const count = (labels: string) => metricSum(cluster.gatewayUrl, 'sluice_requests_total', labels);
const refused = (reason: string) => metricValue(cluster.gatewayUrl, 'sluice_gateway_connections_refused_total', `reason="${reason}"`);

/** A raw connection (from `localAddress`, any loopback address): what it writes, everything the gateway answers until it closes (or `waitMs` passes). */
function rawExchange(write: (socket: Socket) => void, waitMs = 5_000, localAddress = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => write(socket));
    let answer = '';
    const timer = setTimeout(() => (socket.destroy(), resolve(`${answer}[still open]`)), waitMs);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => (clearTimeout(timer), resolve(answer)));
  });
}

/**
 * A keep-alive connection from `localAddress` that was served once and now idles. Served, so the
 * gateway has counted it: a connection only opened may still wait in one of the gateway's accept
 * queues (it listens with several sockets) while a later one is taken first.
 */
function idleSocket(localAddress: string): Promise<{ socket: Socket; status: number }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('error', () => undefined);
    socket.once('data', (chunk) => resolve({ socket, status: Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString())?.[1] ?? 0) }));
    socket.once('close', () => resolve({ socket, status: 0 }));
  });
}

/** The JSON body of a raw HTTP answer. */
const bodyOf = (answer: string): any => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('what one request may cost', () => {
  it('refuses a body over gateway.limits.maxBodyBytes with 413 without keeping it, declared or chunked', async () => {
    const before = await count('reason="body_too_large"');
    const declared = await postCompletion(cluster.gatewayUrl, { prompt: 'x'.repeat(3_000) });
    expect(declared.status).toBe(413);
    expect((await json(declared)).error).toEqual({ message: 'request body is larger than 2048 bytes (gateway.limits.maxBodyBytes)', type: 'invalid_request_error', param: null, code: 'body_too_large' });
    expect(declared.headers.get('connection')).toBe('close');
    const chunked = await rawExchange((socket) => {
      socket.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      for (let i = 0; i < 4; i++) socket.write(`400\r\n${'y'.repeat(0x400)}\r\n`);
      socket.write('0\r\n\r\n');
    });
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(chunked).error.code).toBe('body_too_large');
    expect(await count('reason="body_too_large"')).toBe(before + 2);
  });

  it('refuses a prompt over gateway.limits.maxPromptTokens and max_tokens over gateway.limits.maxTokens, naming each limit', async () => {
    const prompt = await postCompletion(cluster.gatewayUrl, { prompt: Array.from({ length: 65 }, (_, i) => i), max_tokens: 1 });
    expect(prompt.status).toBe(400);
    expect((await json(prompt)).error).toEqual({ message: 'the prompt has 65 tokens; this gateway takes at most 64 (gateway.limits.maxPromptTokens)', type: 'invalid_request_error', param: 'prompt', code: 'prompt_too_long' });
    const output = await postCompletion(cluster.gatewayUrl, { prompt: [1, 2], max_tokens: 501 });
    expect(output.status).toBe(400);
    expect((await json(output)).error).toMatchObject({ message: 'max_tokens is 501; this gateway allows at most 500 (gateway.limits.maxTokens)', param: 'max_tokens', code: 'max_tokens_too_large' });
    expect(await count('reason="prompt_too_long"')).toBe(1);
    expect(await count('reason="max_tokens_too_large"')).toBe(1);
  });

  it('ends a stream open longer than gateway.limits.maxStreamDurationMs with an error event, counted as dropped', async () => {
    const started = Date.now();
    // At the model's own speed 400 tokens take seconds.
    const res = await postCompletion(cluster.gatewayUrl, { prompt: [1, 2, 3], max_tokens: 400, stream: true });
    expect(res.status).toBe(200);
    const events = sseData(await res.text());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events.at(-1)).toBe('[DONE]');
    expect(JSON.parse(events.at(-2)!).error).toMatchObject({ code: 'stream_too_long', type: 'timeout', message: 'the stream was open longer than 600 ms (gateway.limits.maxStreamDurationMs)' });
    expect(events.length).toBeGreaterThan(2);
    expect(await count('outcome="dropped",reason="stream_too_long"')).toBe(1);
    // The request was cancelled downstream: the worker lets it go.
    const worker = cluster.services.find((s) => s.name === 'worker')!.url;
    await eventually(async () => (await metricSum(worker, 'vllm:num_requests_running')) === 0, 5_000, 'the worker let the stream go');
  });
});

describe('bad header values', () => {
  it.each([
    ['x-slo-ttft-ms', 'Infinity'],
    ['x-slo-ttft-ms', '1e400'],
    ['x-slo-ttft-ms', '-1'],
    ['x-sluice-slo-class', 'ultra'],
    ['x-gateway-inference-fairness-id', 'tenant.with.dots'],
    ['x-gateway-inference-objective', 'x'.repeat(65)],
    ['x-sluice-report-timings', 'yes'],
  ])('answer 400 at the gateway naming the header: %s: %s', async (name, value) => {
    const res = await postCompletion(cluster.gatewayUrl, { prompt: [1], max_tokens: 1 }, { headers: { [name]: value } });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: name, code: 'invalid_request' });
    expect(error.message).toMatch(new RegExp(`^header ${name}: .* send `));
  });
});

describe('what one client may hold', () => {
  it('answers 429 to a connection past gateway.limits.maxConnectionsPerClient, and takes one again once another closes', async () => {
    const before = await refused('too_many_connections');
    // An address of its own, so no pooled connection of this file's fetches counts against it.
    const client = '127.0.0.7';
    const held = await Promise.all(Array.from({ length: 6 }, () => idleSocket(client)));
    expect(held.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const answer = await rawExchange((socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'), 5_000, client);
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(bodyOf(answer).error).toMatchObject({ type: 'rate_limit_exceeded', code: 'too_many_connections', message: expect.stringMatching(/^127\.0\.0\.7 already has 6 connections open .*gateway\.limits\.maxConnectionsPerClient/) });
    expect(await refused('too_many_connections')).toBe(before + 1);
    for (const { socket } of held) socket.destroy();
    await eventually(async () => (await rawExchange((socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 5_000, client)).startsWith('HTTP/1.1 200'), 5_000, 'a connection taken again');
  });

  it('closes a connection whose headers stall past gateway.headersTimeoutMs with 408, and keeps an idle keep-alive connection', async () => {
    const before = await refused('headers_timeout');
    const started = Date.now();
    const stalled = await rawExchange((socket) => socket.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\n'));
    expect(stalled).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(stalled).error).toMatchObject({ type: 'timeout', code: 'headers_timeout' });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(await refused('headers_timeout')).toBe(before + 1);
    // Idle between two requests for longer than the headers timeout: still served.
    const twice = await rawExchange((socket) => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      setTimeout(() => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 1_200);
    });
    expect(twice.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });

  it('answers what is not HTTP with 400 in OpenAI\'s error shape', async () => {
    const answer = await rawExchange((socket) => socket.write('\u0000\u0001 not http at all\r\n\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer).error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'malformed_http' });
  });

  it('answers every route it does not serve in OpenAI\'s error shape', async () => {
    for (const [method, path] of [['GET', '/v1/completions'], ['POST', '/v1/models'], ['DELETE', '/busy_threshold'], ['GET', '/v2/%zz']]) {
      const res = await fetch(`${cluster.gatewayUrl}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await json(res)).error, `${method} ${path}`).toEqual({ message: `Cannot ${method} ${path}`, type: 'invalid_request_error', param: null, code: 404 });
    }
  });
});

/**
 * A client that writes its whole body before it reads a byte (Python's urllib, `requests`): the
 * head, then `body` in `pieces` pieces `gapMs` apart, then the answer. A write that fails (the
 * gateway closed on it) is the answer `[write failed: …]`, which is what such a client sees.
 */
function writeAllThenRead(path: string, headers: Record<string, string>, body: Buffer, pieces: number, gapMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let answer = '';
    let failed: string | undefined;
    const timer = setTimeout(() => (socket.destroy(), resolve(`${answer}[still open]`)), 8_000);
    socket.on('error', (error) => (failed ??= error.message));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => (clearTimeout(timer), resolve(failed === undefined ? answer : `[write failed: ${failed}]`)));
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': String(body.length), ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      setTimeout(() => {
        if (socket.destroyed) return;
        socket.write(body.subarray(i * size, (i + 1) * size));
        if (i === pieces - 1) socket.resume(); // only now does it read
      }, i * gapMs);
    }
  });
}

describe('what HTTP gets wrong at the edge', () => {
  it('reads the 413 to a client that writes its whole too-large body slowly before it reads (as Python\'s urllib does)', async () => {
    // 64 kB in 8 pieces over ~0.7 s against a 2 kB limit: answered only once the body is in, so the client never writes into a closed socket.
    const answer = await writeAllThenRead('/v1/completions', { 'content-type': 'application/json' }, Buffer.alloc(64 * 1024, 'x'), 8, 100);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(bodyOf(answer).error).toMatchObject({ code: 'body_too_large' });
  });

  it('answers an Expect it cannot meet with 417 in OpenAI\'s shape, counted', async () => {
    const before = await refused('expectation_failed');
    const answer = await rawExchange((socket) => socket.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(bodyOf(answer).error).toMatchObject({ type: 'invalid_request_error', param: 'expect', code: 'expectation_failed', message: expect.stringMatching(/Expect "bogus"/) });
    expect(await refused('expectation_failed')).toBe(before + 1);
  });

  it('answers broken chunked encoding with 400 saying so, counted as an invalid request, and closes', async () => {
    const before = await count('reason="invalid_request"');
    const answer = await rawExchange((socket) => socket.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\nzz\r\n1}\r\n0\r\n\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).not.toMatch(/\[still open\]$/);
    expect(bodyOf(answer).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/chunked encoding is broken/) });
    expect(await count('reason="invalid_request"')).toBe(before + 1);
  });

  it.each([
    ['/v1/completions', { prompt: 'x', temperature: 'hot' }, 'temperature'],
    ['/v1/completions', { prompt: 'x', logprobs: 1e9 }, 'logprobs'],
    ['/v1/completions', { prompt: 'x', best_of: 100 }, 'best_of'],
    ['/v1/completions', { prompt: 'x', max_tokens: 0 }, 'max_tokens'],
    ['/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }, 'temperature'],
    ['/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], top_logprobs: 1e9 }, 'top_logprobs'],
    ['/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 0 }, 'max_tokens'],
  ])('refuses %s with %j: 400 naming %s', async (path, body, param) => {
    const res = await fetch(`${cluster.gatewayUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', ...body }) });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_request', message: expect.stringMatching(new RegExp(`^${param}: `)) });
  });

  it.each(['/v1/completions', '/v1/chat/completions'])('refuses a body to %s not sent as application/json with 400 saying what to send', async (path) => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${cluster.gatewayUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ model: 'qwen3-14b', prompt: 'x', max_tokens: 1 }) });
      expect(res.status, type).toBe(400);
      expect((await json(res)).error.message).toBe(`the request has Content-Type "${type}": send the JSON body with Content-Type: application/json`);
    }
  });
});

describe('hostile probes: a forged admin write', () => {
  const thresholds = async () => (await fetch(`${cluster.gatewayUrl}/busy_threshold`)).json();
  const forged = JSON.stringify({ model: 'qwen3-14b', active_decode_blocks_threshold: 0 });

  /** node:http, which lets a test name the Host a DNS-rebinding page would. */
  function post(headers: Record<string, string>, body = forged): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/busy_threshold', method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('refuses text/plain from any page (415), a foreign Origin and a rebound Host (403), and the threshold stays as it was', async () => {
    const before = await thresholds();
    const plain = await post({ 'content-type': 'text/plain', origin: 'https://evil.example' });
    expect(plain).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type', message: expect.stringMatching(/send Content-Type: application\/json$/) } } });
    const crossSite = await post({ 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(crossSite).toMatchObject({ status: 403, body: { error: { code: 'cross_site_request' } } });
    const rebound = await post({ 'content-type': 'application/json', host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` });
    expect(rebound).toMatchObject({ status: 403, body: { error: { code: 'host_not_allowed' } } });
    expect(await thresholds()).toEqual(before);
    // A same-origin JSON write from loopback still works (here one that changes nothing): the checks refuse only what a page could forge.
    const own = await post({ 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` }, JSON.stringify({ model: 'qwen3-14b' }));
    expect(own.status).toBe(200);
  });
});

describe('hostile probes: idle sockets past the connection cap', () => {
  it('refuses connections past gateway.limits.maxConnections (503, counted), reclaims idle ones, and a normal client is served again', async () => {
    const before = await refused('connection_limit');
    // 5 addresses × 6 (the per-client cap) = 30 > 24: the last ones find the gateway full.
    const flood = await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].flatMap((address) => Array.from({ length: 6 }, () => idleSocket(address))));
    expect(flood.filter((s) => s.status === 503).length, JSON.stringify(flood.map((s) => s.status))).toBeGreaterThan(0);
    // The idle ones were closed to make room: a client that retries is served.
    await eventually(async () => (await fetch(`${cluster.gatewayUrl}/healthz`).catch(() => undefined))?.status === 200, 5_000, 'a normal client served after the flood');
    for (const { socket } of flood) socket.destroy();
    // Read once the flood is gone: a scrape is a connection too, and a full gateway refuses it.
    await eventually(async () => (await refused('connection_limit').catch(() => before)) > before, 5_000, 'the refusals counted');
  });
});

describe('the books', () => {
  it('balance: every request that entered has exactly one outcome', async () => {
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 5_000, 'nothing in flight');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total'));
  });
});
