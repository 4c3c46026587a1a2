import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '@sluice/bus';
import { subjects, type BusFaultRuleInput } from '@sluice/contracts';
import { FAST_DETECTION_ARGS, FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, postCompletion, streamCompletion, type StreamedAnswer, busOptionsAs } from '@sluice/testing';
import { tokenText } from '@sluice/openai';

/**
 * The fault-tolerance rules (docs/behaviour.md §6) on real processes and a real nats-server: a
 * worker killed mid-stream, each service stopped with SIGTERM under load, NATS down for 3 s, and
 * request bodies that never complete. Heartbeats are shortened so a loss is detected in about a
 * second; the model runs at real speed so streams last long enough to be cut.
 */
const PROMPT = 'Tell me about sluice gates and how they control the flow of water in a canal.';

/** The stream is whole and in order: exactly `maxTokens` pieces, each the one the model says next, and usage agrees. */
function expectWholeStream(answer: StreamedAnswer, maxTokens: number): void {
  expect(answer.status).toBe(200);
  expect(answer.errorCode).toBeUndefined();
  expect(answer.pieces).toEqual(Array.from({ length: maxTokens }, (_, i) => tokenText(i)));
  expect(answer.completionTokens).toBe(maxTokens);
}

/** Every request the gateway received has exactly one terminal outcome, and none is left in flight. */
async function expectBooksBalance(gatewayUrl: string): Promise<void> {
  await eventually(async () => (await metricValue(gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
  expect(await metricSum(gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(gatewayUrl, 'sluice_requests_received_total'));
}

// The worker kill, then the NATS outage, on one cluster: the outage starts only once the killed
// worker is back and every process is ready, and what it checks (each stream completes whole or ends
// with a reason, every process ready again, the books balance) holds for any healthy cluster.
describe('a worker killed, then NATS stopped, on one cluster', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, ...FAST_DETECTION_ARGS, '--worker.processes=2', '--worker.instances=2', '--router.policy=least-loaded'],
    });
  });
  afterAll(() => cluster?.stop());

  describe('a worker process killed mid-stream', () => {
    it('loses no stream: the requests it held continue on other instances, no token repeated or missing', async () => {
      // About 0.8 s of tokens at real speed: the kill comes at the last stream's first token, so every
      // stream is cut early, and each migrated one still has ~55 tokens to show in order after its cut.
      const maxTokens = 60;
      const count = 24;
      let started = 0;
      const streams: Promise<StreamedAnswer>[] = [];
      await new Promise<void>((resolve) => {
        const onFirstToken = () => ++started === count && resolve();
        for (let i = 0; i < count; i++) streams.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens }, onFirstToken));
      });
      cluster.signal('worker-1', 'SIGKILL');
      const answers = await Promise.all(streams);
      for (const answer of answers) expectWholeStream(answer, maxTokens);
      // About half were on worker-1's two instances, and each moved once.
      const migrated = await metricSum(cluster.gatewayUrl, 'sluice_migrations_total', 'reason="worker_lost"');
      expect(migrated).toBeGreaterThanOrEqual(1);
      expect(await metricSum(cluster.gatewayUrl, 'sluice_migrations_total', 'type="ongoing_request"')).toBe(migrated);
      expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="worker_lost"')).toBe(0);
      await expectBooksBalance(cluster.gatewayUrl);
    });
  });

  describe('NATS stopped for 3 s', () => {
    it('strands no request: the streams caught in it complete or end with a reason long before the deadline, and every service serves again', async () => {
      await eventually(() => cluster.processes().every((p) => p.state === 'ready'), 20_000, 'every process ready (the killed worker restarted)');
      const maxTokens = 200;
      let started = 0;
      const streams: Promise<StreamedAnswer>[] = [];
      await new Promise<void>((resolve) => {
        for (let i = 0; i < 8; i++) streams.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens }, () => ++started === 8 && resolve()));
      });
      const outageStarted = Date.now();
      // Three times the gateway's heartbeat timeout here (1 s): one timeout into the outage the gateway
      // ends what it has open (stage_lost), and every service is still without a bus for two more, as
      // in a longer outage, before it reconnects on NATS's return.
      await cluster.restartNats(3_000);
      const back = Date.now();
      // Served again: a fresh request is answered 200 soon after NATS is back.
      await eventually(async () => (await postCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 4 })).status === 200, 10_000, 'a request served after the outage');
      const servedAfterMs = Date.now() - back;
      const answers = await Promise.all(streams);
      const endedWithin = Date.now() - outageStarted;
      expect(endedWithin).toBeLessThan(30_000); // the request deadline is 60 s
      for (const answer of answers) {
        if (answer.status === 200 && answer.errorCode === undefined) expectWholeStream(answer, maxTokens);
        else expect(answer.errorCode).toBeDefined();
      }
      for (const process of cluster.processes()) expect((await fetch(`${process.url}/readyz`)).status).toBe(200);
      await expectBooksBalance(cluster.gatewayUrl);
      console.log(`NATS outage: served again ${servedAfterMs} ms after NATS was back; ${answers.filter((a) => a.status === 200 && !a.errorCode).length}/8 streams completed; ended with ${JSON.stringify(answers.map((a) => a.errorCode ?? 'ok'))}`);
    });
  });
});

describe('SIGTERM of each service under a steady load', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // A restart takes a second or two on a busy machine: the gateway keeps trying an absent stage
      // for two of its heartbeat timeouts, so this one keeps the default (3 s, a 6 s window).
      configArgs: [...FREE_PORT_ARGS, ...FAST_DETECTION_ARGS, '--gateway.heartbeatTimeoutMs=3000', '--worker.processes=2', '--worker.instances=1', '--worker.timeScale=4', '--worker.shutdownGraceMs=1000'],
    });
  });
  afterAll(() => cluster?.stop());

  it('fails no request while router, flow controller, admission and a worker restart one at a time', async () => {
    const maxTokens = 24;
    const answers: Promise<StreamedAnswer>[] = [];
    let sending = true;
    const load = (async () => {
      while (sending) {
        answers.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens }));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    for (const name of ['router', 'flow-controller', 'admission', 'worker-0']) {
      const before = cluster.processes().find((p) => p.name === name)!;
      cluster.signal(name, 'SIGTERM');
      await eventually(() => {
        const now = cluster.processes().find((p) => p.name === name)!;
        return now.pid !== before.pid && now.state === 'ready';
      }, 20_000, `${name} restarted`);
    }
    sending = false;
    await load;
    const settled = await Promise.all(answers);
    const failed = settled.filter((a) => a.status !== 200 || a.errorCode !== undefined).map((a) => `${a.status} ${a.errorCode ?? ''}: ${a.errorMessage ?? ''}`);
    expect(failed).toEqual([]);
    for (const answer of settled) expectWholeStream(answer, maxTokens);
    expect(settled.length).toBeGreaterThan(50);
    await expectBooksBalance(cluster.gatewayUrl);
  });

  it('a gateway stopped with SIGTERM finishes the streams it has open before it goes', async () => {
    const maxTokens = 60;
    let started = 0;
    const streams: Promise<StreamedAnswer>[] = [];
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 4; i++) streams.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens }, () => ++started === 4 && resolve()));
    });
    cluster.signal('gateway', 'SIGTERM');
    for (const answer of await Promise.all(streams)) expectWholeStream(answer, maxTokens);
  });
});

describe('request bodies that never complete', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, services: ['gateway'], configArgs: [...FREE_PORT_ARGS, '--gateway.bodyTimeoutMs=500'] });
  });
  afterAll(() => cluster?.stop());

  /** Sends the head of a request and part of its body, then stalls or hangs up; resolves with what came back. */
  function partialRequest(how: 'stall' | 'hang-up'): Promise<string> {
    const url = new URL(cluster.gatewayUrl);
    return new Promise((resolve, reject) => {
      const socket = connectTcp(Number(url.port), url.hostname, () => {
        socket.write(`POST /v1/completions HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"model": "qwen3`);
        if (how === 'hang-up') setTimeout(() => socket.destroy(), 100);
      });
      let received = '';
      socket.on('data', (data) => (received += data.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
  }

  it('answers a stalled body 408 within gateway.bodyTimeoutMs, counts a client gone mid-body, and leaves nothing in flight', async () => {
    const started = Date.now();
    const stalled = await partialRequest('stall');
    expect(stalled).toMatch(/^HTTP\/1\.1 408/);
    expect(stalled).toContain('body_timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    await partialRequest('hang-up');
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="client_disconnected"')) === 1, 5_000, 'the hang-up counted');
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="body_timeout"')).toBe(1);
    await expectBooksBalance(cluster.gatewayUrl);
  });
});

describe('every message duplicated on the bus', () => {
  let cluster: LocalCluster;
  let bus: Bus;
  beforeAll(async () => {
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--worker.instances=2', '--worker.timeScale=10'] });
    bus = await Bus.connect({ ...busOptionsAs(cluster, 'control'), name: 'fault-tolerance-spec', ackTimeoutMs: 2_000, waitForServer: false, answerFaultControl: false });
  });
  afterAll(async () => {
    await bus?.drain();
    await cluster?.stop();
  });

  it('serves each request once and counts it once: handoffs, done events, lifecycle, load and inbox frames all arrive twice', async () => {
    const everything: BusFaultRuleInput[] = ['sluice.v1.*.submit', 'sluice.v1.worker.*.*', 'sluice.v1.inbox.>'].map((subject) => ({ subject, duplicatePercent: 100 }));
    for (const rule of everything) expect((await bus.askAll(subjects.busFaults('set'), rule)).length).toBeGreaterThanOrEqual(5);
    const maxTokens = 12;
    const answers = await Promise.all(Array.from({ length: 20 }, () => streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens })));
    for (const answer of answers) expectWholeStream(answer, maxTokens);
    const worker = cluster.processes().find((p) => p.name === 'worker-0')!;
    // Each request ran once on a worker, though every handoff to one arrived twice.
    expect(await metricSum(worker.url, 'vllm:request_success_total')).toBe(20);
    const router = cluster.processes().find((p) => p.name === 'router')!;
    await eventually(async () => (await metricSum(router.url, 'sluice_router_inflight')) === 0, 5_000, 'the router’s in-flight books back to 0');
    await bus.askAll(subjects.busFaults('clear'), {});
    await expectBooksBalance(cluster.gatewayUrl);
  });
});

describe('a flow controller killed with requests in its queue', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, ...FAST_DETECTION_ARGS, '--worker.instances=1', '--worker.timeScale=10', '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1}}'],
    });
  });
  afterAll(() => cluster?.stop());

  it('strands nothing: the gateway hears it go silent and queues what it held at the restarted one', async () => {
    const flow = () => cluster.processes().find((p) => p.name === 'flow-controller')!;
    // One long stream holds the only slot; two more wait in the flow controller's queue.
    let holding = false;
    const abort = new AbortController();
    const hold = postCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 5_000, stream: true }, { signal: abort.signal }).then(async (res) => {
      const reader = res.body!.getReader();
      await reader.read();
      holding = true;
      return reader;
    });
    await eventually(() => holding, 10_000, 'the slot held');
    const waiting = [0, 1].map(() => streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 8 }));
    await eventually(async () => (await metricSum(flow().url, 'inference_extension_flow_control_queue_size')) === 2, 5_000, 'two requests queued');
    const killedAt = Date.now();
    cluster.signal('flow-controller', 'SIGKILL');
    // Detected by the missing presence heartbeats (1 s here), not by the 60 s deadline.
    await eventually(async () => (await metricSum(cluster.gatewayUrl, 'sluice_migrations_total', 'reason="stage_lost"')) === 2, 10_000, 'both re-submitted as stage_lost');
    const detectedMs = Date.now() - killedAt;
    expect(detectedMs).toBeLessThan(2 * 1_000 + 1_000); // within 2× the gateway's heartbeat timeout, plus a poll
    abort.abort();
    (await hold).cancel().catch(() => undefined);
    for (const answer of await Promise.all(waiting)) expectWholeStream(answer, 8);
    await expectBooksBalance(cluster.gatewayUrl);
  });
});
