import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_REASONS, httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, sseData } from '@sluice/testing';

/**
 * The HTTP API fuzzed: generated requests, valid, near-valid and hostile (bodies,
 * methods, paths, content types, the scheduling headers), sent over keep-alive connections to the
 * gateway of a real cluster with its default limits. Every answer must be well formed (JSON in
 * OpenAI's error shape for every error), no bad input may get a 5xx, every valid request must be
 * served, no service may fall over, and the books must balance afterwards.
 */
const BATCHES = 200;
const BATCH = 50;
const RAW_EXCHANGES = 1_000;
const MODEL = 'qwen3-14b';
/** A new draw every run (CI covers more over time); a failure names the seed that reproduces it (HTTP_FUZZ_SEED). */
const SEED = Number(process.env.HTTP_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

let cluster: LocalCluster;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
/** Processes that exited while the fuzz ran: none may (no restarts, so a crash cannot hide behind one). */
const exits: string[] = [];

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    // A chat request without a length runs to the context left, capped by limits.maxTokens (as vLLM):
    // mutations drop max_tokens, and 10,000 answers of up to 8,192 tokens each would be the test's time.
    configArgs: [...FREE_PORT_ARGS, '--worker.timeScale=1000', '--worker.instances=2', '--gateway.limits.maxTokens=16'],
    parallel: true,
    restart: false,
    onExit: (exit) => exits.push(JSON.stringify(exit)),
  });
  port = Number(new URL(cluster.gatewayUrl).port);
});

afterAll(async () => {
  agent.destroy();
  await cluster?.stop();
});

/** One generated request; `valid`: a well-formed inference request the cluster must serve with 200. */
interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | (() => Buffer) | undefined;
  /** Sent in two writes (chunked transfer encoding) rather than with a Content-Length. */
  readonly chunked: boolean;
  readonly valid: boolean;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

// ---- what is generated -----------------------------------------------------------------------

/** Header values go on the wire as bytes: text beyond Latin-1 is sent as its UTF-8 bytes. */
const asHeaderValue = (text: string) => Buffer.from(text, 'utf8').toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const hostileText = fc.oneof(
  fc.constantFrom('Infinity', '-Infinity', '1e400', 'NaN', '-0', '0', '0x10', '', ' ', '1_000', '٣', '5, 5', 'null', 'undefined', '[object Object]', '../../etc/passwd', 'a.b.c', '*', '>', 'sluice.v1.worker.x.submit'),
  fc.string({ maxLength: 100 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double().map(String),
  fc.integer({ min: 65, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

const validSchedulingHeaders = fc.record(
  {
    [httpHeaders.fairnessId]: fc.constantFrom('tenant-a', 'tenant-b', 'team_7'),
    [httpHeaders.objective]: fc.constantFrom('premium', 'unknown-objective'),
    [httpHeaders.sloClass]: fc.constantFrom('critical', 'standard', 'batch', 'sheddable', 'background'),
    [httpHeaders.sloTtftMs]: fc.oneof(fc.integer({ min: 1, max: 3_600_000 }).map(String), fc.constantFrom('0.5', '250.25')),
    [httpHeaders.reportTimings]: fc.constantFrom('0', '1'),
  },
  { requiredKeys: [] },
);

/** The scheduling headers, at least one of them hostile. */
const hostileSchedulingHeaders = fc
  .tuple(validSchedulingHeaders, fc.subarray([httpHeaders.fairnessId, httpHeaders.objective, httpHeaders.sloClass, httpHeaders.sloTtftMs, httpHeaders.reportTimings, 'authorization'], { minLength: 1 }), fc.array(hostileText, { minLength: 6, maxLength: 6 }))
  .map(([valid, names, values]) => ({ ...valid, ...Object.fromEntries(names.map((name, i) => [name, asHeaderValue(values[i]!)])) }));

/** What a JSON body may be declared as (the media type is what counts, not its parameters or case). */
const jsonContentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON');
/** Any declared type: a body not sent as application/json is refused with 400 at the inference routes, 415 at admin writes. */
const contentType = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', '');

/** Prompts an instance can serve: at least one token (an empty one is the worker's 400, `unservable`). */
const prompt = fc.oneof(
  fc.string({ minLength: 1, maxLength: 120 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.array(fc.integer({ min: 0, max: 127_999 }), { minLength: 1, maxLength: 64 }),
);
const completionBody = fc.record({ model: fc.constant(MODEL), prompt, max_tokens: fc.integer({ min: 1, max: 3 }), stream: fc.boolean(), stream_options: fc.record({ include_usage: fc.boolean() }) });
const chatBody = fc.record({
  model: fc.constant(MODEL),
  messages: fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 })) }), { minLength: 1, maxLength: 3 }),
  max_tokens: fc.integer({ min: 1, max: 3 }),
  stream: fc.boolean(),
});

/** One field of a valid body replaced, removed or added: a body a client gets almost right. */
const nearValidBody = fc
  .tuple(fc.oneof(completionBody, chatBody), fc.constantFrom('model', 'prompt', 'messages', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'n', 'extra', 'temperature', 'top_p', 'logprobs', 'top_logprobs', 'best_of'), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(-1, 1.5, 1e300, 2 ** 53, 50_000, 0, '1', [], [-1], [128_000], [[1]], {}, null, true, 'gpt-9', '')), fc.boolean())
  .map(([body, field, value, remove]) => {
    const changed: Record<string, unknown> = { ...body };
    if (remove) delete changed[field];
    else changed[field] = value;
    return changed;
  });

/** Made when sent, not when generated: a batch holds fifty requests, not fifty megabytes. */
const hugeBody = fc.constantFrom(
  () => Buffer.from(JSON.stringify({ model: MODEL, prompt: 'x '.repeat(600_000), max_tokens: 1 })),
  () => Buffer.from(JSON.stringify({ model: MODEL, prompt: Array.from({ length: 40_000 }, (_, i) => i % 128_000), max_tokens: 1 })),
  () => Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
  () => Buffer.from(JSON.stringify({ model: MODEL, messages: Array.from({ length: 5_000 }, () => ({ role: 'user', content: 'hi' })), max_tokens: 1 })),
);

const garbageBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 200 }).map((text) => Buffer.from(text)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc.constantFrom(Buffer.alloc(0), Buffer.from('{'), Buffer.from('{"model":'), Buffer.from('\uFEFF{}'), Buffer.from([0xff, 0xfe, 0x00])),
);

const completionPath = fc.constantFrom('/v1/completions', '/V1/Completions/', '/v1/completions?stream=true');
const chatPath = fc.constantFrom('/v1/chat/completions', '/v1/Chat/Completions/', '/v1/chat/completions?x=%zz');
const inferencePath = fc.oneof(completionPath, chatPath);
const otherPath = fc.oneof(
  fc.constantFrom('/', '/v1', '/v1/models', '/busy_threshold', '/healthz', '/readyz', '/v1/completions/x', '/v1/../v1/models', '/%', '/%zz', '/v1/%00', '//v1//completions', '/v1/embeddings'),
  fc.webPath(),
  fc.string({ maxLength: 40 }).map((s) => `/${encodeURIComponent(s)}`),
);
const anyMethod = fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'POST', 'TRACE', 'PURGE');

const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  // A valid request: it must be served.
  { weight: 30, arbitrary: fc.record({ pathAndBody: fc.oneof(fc.tuple(completionPath, completionBody), fc.tuple(chatPath, chatBody)), headers: validSchedulingHeaders, ct: jsonContentType, chunked: fc.boolean() }).map(({ pathAndBody: [path, body], headers, ct, chunked }) => ({ method: 'POST', path, headers: { ...headers, 'content-type': ct }, body: Buffer.from(JSON.stringify(body)), chunked, valid: true })) },
  // A valid body under hostile scheduling headers.
  { weight: 15, arbitrary: fc.record({ path: inferencePath, body: fc.oneof(completionBody, chatBody), headers: hostileSchedulingHeaders, chunked: fc.boolean() }).map(({ path, body, headers, chunked }) => ({ method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), chunked, valid: false })) },
  { weight: 25, arbitrary: fc.record({ path: inferencePath, body: nearValidBody, ct: contentType, chunked: fc.boolean() }).map(({ path, body, ct, chunked }) => ({ method: 'POST', path, headers: { 'content-type': ct }, body: Buffer.from(JSON.stringify(body)), chunked, valid: false })) },
  { weight: 15, arbitrary: fc.record({ path: inferencePath, body: garbageBody, ct: contentType, chunked: fc.boolean() }).map(({ path, body, ct, chunked }) => ({ method: 'POST', path, headers: { 'content-type': ct }, body, chunked, valid: false })) },
  { weight: 1, arbitrary: fc.record({ path: inferencePath, body: hugeBody, chunked: fc.boolean() }).map(({ path, body, chunked }) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body, chunked, valid: false })) },
  // Other routes and methods, with or without a body. POST /busy_threshold may change a threshold: the active policy (always-admit) does not read it.
  { weight: 14, arbitrary: fc.record({ method: anyMethod, path: fc.oneof(inferencePath, otherPath), body: fc.option(fc.oneof(garbageBody, nearValidBody.map((b) => Buffer.from(JSON.stringify(b))))), ct: contentType }).map(({ method, path, body, ct }) => ({ method, path, headers: { 'content-type': ct }, body: method === 'HEAD' || body === null ? undefined : body, chunked: false, valid: false })) },
);

// ---- sending and checking ----------------------------------------------------------------------

function send(req: FuzzRequest): Promise<Answer | Error> {
  const body = typeof req.body === 'function' ? req.body() : req.body;
  return new Promise((resolve) => {
    const headers: Record<string, string> = Object.fromEntries(Object.entries(req.headers).filter(([, value]) => value !== ''));
    // Node's client frames a GET, DELETE, OPTIONS or TRACE body only when told its length; sent
    // unframed, its bytes would read as a second request on the connection (the raw test's job).
    const chunked = req.chunked && req.method === 'POST';
    if (body !== undefined && !chunked) headers['content-length'] = String(body.length);
    const outgoing = httpRequest({ host: '127.0.0.1', port, agent, method: req.method, path: req.path, headers, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve(error));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 20 s')));
    outgoing.on('error', (error) => resolve(error));
    if (body === undefined) outgoing.end();
    else if (chunked && body.length > 1) {
      outgoing.write(body.subarray(0, body.length >> 1));
      outgoing.end(body.subarray(body.length >> 1));
    } else outgoing.end(body);
  });
}

/** Reasons whose answer is a 5xx: a valid request may get one only with one of these, from the cluster. */
const SERVER_SIDE = new Set(Object.entries(OUTCOME_REASONS).filter(([, spec]) => spec.status >= 500).map(([reason]) => reason));

/** An OpenAI error object: exactly message, type, param and code, with their types. */
function errorShapeProblem(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return 'no error object';
  const e = error as Record<string, unknown>;
  if (Object.keys(e).sort().join() !== 'code,message,param,type') return `error keys ${Object.keys(e).join()}`;
  if (typeof e.message !== 'string' || typeof e.type !== 'string') return 'message and type must be strings';
  if (e.param !== null && typeof e.param !== 'string') return 'param must be a string or null';
  if (e.code !== null && typeof e.code !== 'string' && typeof e.code !== 'number') return 'code must be a string, a number or null';
  return undefined;
}

/**
 * The HTTP responses in what one raw connection received, in order: a request answered, then the
 * bytes after it (read as a next request) refused, gives two. An error's body is cut at its
 * Content-Length; a body without one (a stream) is left unread.
 */
function responsesIn(bytes: Buffer): { status: number; body: string }[] {
  const responses: { status: number; body: string }[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const head = rest.subarray(0, end === -1 ? rest.length : end).toString('latin1');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    const bodyStart = end === -1 ? rest.length : end + 4;
    const bodyEnd = length === undefined ? rest.length : bodyStart + Number(length);
    responses.push({ status, body: rest.subarray(bodyStart, bodyEnd).toString('utf8') });
    rest = rest.subarray(bodyEnd);
  }
  return responses;
}

/** What is wrong with one answer; undefined when it is as it must be. */
function problemOf(req: FuzzRequest, answer: Answer): string | undefined {
  const type = String(answer.headers['content-type'] ?? '');
  if (req.method === 'HEAD') return answer.status >= 500 ? `HEAD got ${answer.status}` : undefined;
  if (answer.status >= 400) {
    if (!type.startsWith('application/json')) return `${answer.status} as ${type}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      return `${answer.status} body is not JSON`;
    }
    const shape = errorShapeProblem((parsed as { error?: unknown }).error);
    if (shape !== undefined) return `${answer.status} not in OpenAI's error shape: ${shape}`;
    const code = (parsed as { error: { code: unknown } }).error.code;
    if (answer.status >= 500 && !(req.valid && SERVER_SIDE.has(String(code)))) return `${answer.status} (${String(code)}) for ${req.valid ? 'a valid request' : 'bad input'}`;
    if (req.valid && answer.status < 500) return `a valid request refused: ${answer.status} ${answer.body.slice(0, 200)}`;
    return undefined;
  }
  if (answer.status !== 200) return `status ${answer.status}`;
  if (type.startsWith('text/event-stream')) {
    const events = sseData(answer.body);
    if (events.at(-1) !== '[DONE]') return 'a stream not closed by [DONE]';
    for (const event of events.slice(0, -1)) {
      let chunk: { error?: unknown };
      try {
        chunk = JSON.parse(event) as { error?: unknown };
      } catch {
        return `an event that is not JSON: ${event.slice(0, 80)}`;
      }
      if (chunk.error !== undefined) return `a stream that ended in an error: ${event.slice(0, 200)}`;
    }
    return undefined;
  }
  if (type.startsWith('application/json')) {
    try {
      JSON.parse(answer.body);
    } catch {
      return '200 body is not JSON';
    }
    return undefined;
  }
  return type.startsWith('text/plain') ? undefined : `200 as ${type}`;
}

const tally = { sent: 0, valid: 0, byStatus: new Map<number, number>(), connectionErrors: 0, withRequestId: 0, inferenceNoAnswer: 0 };
const isInference = (req: FuzzRequest) => req.method === 'POST' && /^\/v1\/(chat\/)?completions\/?(\?|$)/i.test(req.path);

describe('the HTTP API, fuzzed', () => {
  it(`answers ${BATCHES * BATCH} generated requests well, and no bad input with a 5xx`, async () => {
    const problems: string[] = [];
    for (let b = 0; b < BATCHES; b++) {
      // Drawn a batch at a time, so the huge bodies of one batch are all that is held at once.
      const batch = fc.sample(request, { numRuns: BATCH, seed: SEED + b });
      const answers = await Promise.all(batch.map(send));
      batch.forEach((req, i) => {
        const answer = answers[i]!;
        tally.sent++;
        if (req.valid) tally.valid++;
        const said = () => `${req.method} ${req.path} ${JSON.stringify(req.headers).slice(0, 300)} ${typeof req.body === 'function' ? '(huge body)' : (req.body?.subarray(0, 200).toString('utf8') ?? '')}`;
        if (answer instanceof Error) {
          tally.connectionErrors++;
          if (isInference(req)) tally.inferenceNoAnswer++;
          // Only a body the gateway refused unread may lose its answer: it closes the connection while the client still writes.
          if (typeof req.body !== 'function') problems.push(`${said()}: ${answer.message}`);
          return;
        }
        tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
        if (answer.headers[httpHeaders.requestId] !== undefined) tally.withRequestId++;
        else if (isInference(req)) tally.inferenceNoAnswer++;
        const problem = problemOf(req, answer);
        if (problem !== undefined) problems.push(`${said()}: ${problem}`);
      });
    }
    console.log(`fuzzed ${tally.sent} requests (seed ${SEED}; ${tally.valid} valid): ${[...tally.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${n}× ${status}`).join(', ')}; ${tally.connectionErrors} connections closed on an over-limit body`);
    expect(problems.slice(0, 20), `seed ${SEED} reproduces these`).toEqual([]);
    expect(tally.sent).toBe(BATCHES * BATCH);
    // The generators reach the paths they are meant to: served, refused, and not found.
    expect(tally.byStatus.get(200) ?? 0).toBeGreaterThan(2_000);
    expect(tally.byStatus.get(400) ?? 0).toBeGreaterThan(2_000);
    expect(tally.byStatus.get(404) ?? 0).toBeGreaterThan(100);
  });

  it(`answers ${RAW_EXCHANGES} raw byte streams with HTTP in OpenAI's error shape, or closes them`, async () => {
    const rawBytes = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
      // Almost HTTP: a request line and headers with bytes no client library would send.
      fc.tuple(fc.constantFrom('POST /v1/completions', 'GET /healthz', 'POST /v1/chat/completions', 'G\u0000T /', 'POST /v1/completions HTTP/9.9'), fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 40 })), { maxLength: 5 }), fc.constantFrom('', 'content-length: 5\r\n', 'content-length: -1\r\n', 'content-length: 1, 2\r\n', 'transfer-encoding: chunked\r\n', 'transfer-encoding: chunked\r\ncontent-length: 3\r\n'), fc.string({ maxLength: 60 }))
        .map(([line, headers, framing, body]) => Buffer.from(`${line} HTTP/1.1\r\nhost: x\r\n${framing}${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n${body}`, 'utf8')),
    );
    const samples = fc.sample(rawBytes, { numRuns: RAW_EXCHANGES, seed: SEED });
    const problems: string[] = [];
    let answered = 0;
    const exchange = (bytes: Buffer) =>
      new Promise<void>((resolve) => {
        // Half-closing at once would abort a request Node had read whole (no answer to check):
        // the connection is ended on the first answer, or after a moment without one.
        const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
        const hangUp = setTimeout(() => socket.end(), 250);
        const received: Buffer[] = [];
        const timer = setTimeout(() => (problems.push(`no close within 15 s: ${JSON.stringify(bytes.toString('latin1').slice(0, 80))}`), socket.destroy()), 15_000);
        socket.on('data', (chunk: Buffer) => {
          received.push(chunk);
          socket.end();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          clearTimeout(hangUp);
          const answers = responsesIn(Buffer.concat(received));
          if (answers.length > 0) answered++;
          for (const { status, body } of answers) {
            if (!(status >= 200 && status < 500)) problems.push(`status ${status} for ${JSON.stringify(bytes.toString('latin1').slice(0, 80))}`);
            else if (status >= 400) {
              let shape: string | undefined;
              try {
                shape = errorShapeProblem((JSON.parse(body) as { error?: unknown }).error);
              } catch {
                shape = 'not JSON';
              }
              if (shape !== undefined) problems.push(`${status} ${shape}: ${body.slice(0, 120)}`);
            }
          }
          resolve();
        });
      });
    for (let i = 0; i < samples.length; i += 16) await Promise.all(samples.slice(i, i + 16).map(exchange));
    console.log(`raw: ${samples.length} byte streams, ${answered} answered`);
    expect(problems).toEqual([]);
    expect(answered).toBeGreaterThan(RAW_EXCHANGES / 2);
  });

  it('leaves every service running and ready, and the books balanced', async () => {
    expect(exits).toEqual([]);
    for (const service of cluster.services) expect((await fetch(`${service.url}/readyz`)).status, service.name).toBe(200);
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
    const received = await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(received);
    // Every inference request that entered was answered with its id, or lost its answer with its connection.
    expect(received).toBeGreaterThanOrEqual(tally.withRequestId);
    expect(received).toBeLessThanOrEqual(tally.withRequestId + tally.inferenceNoAnswer + RAW_EXCHANGES);
  });
});
