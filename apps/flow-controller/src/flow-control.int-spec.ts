import { request as httpRequest } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, postCompletion } from '@sluice/testing';

/**
 * Flow control through the real gateway, admission, router and a worker, modelled on the Endpoint
 * Picker's own flow-control tests. The pool is one instance behind a concurrency detector with
 * room for one or two requests, so "saturated" is exact: a long streaming request holds the slot,
 * the test queues what it needs, then lets the slot go by disconnecting the holder.
 */

let nextToken = 1;
/** A prompt of fresh token ids, so no request shares a cached prefix with another. */
const prompt = (n = 32) => Array.from({ length: n }, () => nextToken++ % 128_000);

const QUEUE_SIZE = 'inference_extension_flow_control_queue_size';
const QUEUE_DURATION = 'inference_extension_flow_control_request_queue_duration_seconds';

function complete(url: string, headers: Record<string, string> = {}, body: object = {}, signal?: AbortSignal): Promise<Response> {
  // The answer ends with the stage timings: how each request was served.
  return postCompletion(url, { prompt: prompt(), max_tokens: 4, ...body }, { headers: { [httpHeaders.reportTimings]: '1', ...headers }, ...(signal ? { signal } : {}) });
}

/** A long streaming request that holds a slot until released (the client disconnects). */
async function occupy(url: string, headers: Record<string, string> = {}): Promise<{ release: () => void }> {
  const abort = new AbortController();
  const res = await complete(url, headers, { max_tokens: 5_000, stream: true }, abort.signal);
  // A hold that was refused holds nothing: say why here, not in a puzzling status further on.
  if (!res.ok) throw new Error(`the request meant to occupy the pool got ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  await reader.read(); // its first token: it is running on the worker
  return {
    release: () => {
      abort.abort();
      reader.cancel().catch(() => undefined);
    },
  };
}

/** Sends one request and, if it completes, records `tag` in `order` once its answer is read. */
async function sendRecording(url: string, tag: string, order: string[], headers: Record<string, string> = {}): Promise<Response> {
  const res = await complete(url, headers);
  await res.clone().text();
  if (res.ok) order.push(tag);
  return res;
}

const serviceUrl = (cluster: LocalCluster, name: string) => cluster.services.find((s) => s.name === name)!.url;
const queued = (cluster: LocalCluster) => metricSum(serviceUrl(cluster, 'flow-controller'), QUEUE_SIZE);
const slo = (sloClass: string, fairnessId?: string) => ({ [httpHeaders.sloClass]: sloClass, ...(fairnessId ? { [httpHeaders.fairnessId]: fairnessId } : {}) });

/** A config document (YAML) for one test cluster: the flow-control section in the Endpoint Picker's shape. */
function configFile(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-flow-')), 'sluice.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('flow control: priority, fairness, disconnect (one slot)', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    const config = configFile(`
worker: { instances: 1, timeScale: 10 }
flowController:
  priorityBands:
    - priority: 3
      fairnessPolicyRef: round-robin-fairness-policy
  saturationDetector:
    type: concurrency-detector
    parameters: { maxConcurrency: 1 }
`);
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: ['--config', config, ...FREE_PORT_ARGS] });
  });
  afterAll(() => cluster?.stop());

  it('while saturated, the premium band drains first, whatever the arrival order', async () => {
    const hold = await occupy(cluster.gatewayUrl);
    const order: string[] = [];
    const sent: Promise<Response>[] = [];
    // Batch (priority −1) arrives first, then critical (4).
    for (let i = 0; i < 4; i++) sent.push(sendRecording(cluster.gatewayUrl, 'batch', order, slo('batch')));
    await eventually(async () => (await queued(cluster)) === 4, 5_000, 'four batch requests queued');
    for (let i = 0; i < 4; i++) sent.push(sendRecording(cluster.gatewayUrl, 'critical', order, slo('critical')));
    await eventually(async () => (await queued(cluster)) === 8, 5_000, 'eight requests queued');
    hold.release();

    const answers = await Promise.all(sent);
    for (const res of answers) expect(res.status).toBe(200);
    expect(order).toEqual(['critical', 'critical', 'critical', 'critical', 'batch', 'batch', 'batch', 'batch']);
    // Released one at a time, each when the one before it has left the worker, so each decoded
    // alone: 3 decode steps of one sequence, 13.605 ms each in model time (÷10 at timeScale 10).
    // Releasing the queue at once would batch them, and a step of 8 sequences is longer.
    for (const res of answers) {
      const { sluice } = (await res.json()) as { sluice: { timings: { decodeMs: number } } };
      expect(sluice.timings.decodeMs).toBeCloseTo((3 * 13.605) / 10, 6);
    }
  });

  it('round-robin fairness: a tenant flooding the band cannot starve another; global-strict serves in arrival order', async () => {
    // Band 3 (standard) is round-robin; band 4 (critical) has the default global-strict policy.
    for (const [sloClass, fairness] of [['standard', 'round-robin'], ['critical', 'global-strict']] as const) {
      const hold = await occupy(cluster.gatewayUrl, slo('critical'));
      const order: string[] = [];
      const sent: Promise<Response>[] = [];
      for (let i = 0; i < 8; i++) sent.push(sendRecording(cluster.gatewayUrl, 'flood', order, slo(sloClass, 'tenant-flood')));
      await eventually(async () => (await queued(cluster)) === 8, 5_000, 'the flood queued');
      for (let i = 0; i < 4; i++) sent.push(sendRecording(cluster.gatewayUrl, 'quiet', order, slo(sloClass, 'tenant-quiet')));
      await eventually(async () => (await queued(cluster)) === 12, 5_000, 'all queued');
      hold.release();
      for (const res of await Promise.all(sent)) expect(res.status).toBe(200);

      const quietInFirstEight = order.slice(0, 8).filter((t) => t === 'quiet').length;
      if (fairness === 'round-robin') {
        // Turns alternate: the quiet tenant gets every other dispatch until it has none left.
        expect(order.slice(0, 8)).toEqual(['flood', 'quiet', 'flood', 'quiet', 'flood', 'quiet', 'flood', 'quiet']);
      } else {
        expect(quietInFirstEight).toBe(0);
      }
    }
  });

  it('a client that disconnects while queued gets 503 booked, and its request never reaches a worker', async () => {
    const router = serviceUrl(cluster, 'router');
    const routed = () => metricSum(router, 'sluice_router_decisions_total');
    const hold = await occupy(cluster.gatewayUrl);
    const routedBefore = await routed();

    const abort = new AbortController();
    const leaving = complete(cluster.gatewayUrl, {}, {}, abort.signal).catch((error: unknown) => error);
    await eventually(async () => (await queued(cluster)) === 1, 5_000, 'the request queued');
    abort.abort();
    expect(await leaving).toBeInstanceOf(Error);
    await eventually(async () => (await queued(cluster)) === 0, 5_000, 'the queue emptied');

    const flow = serviceUrl(cluster, 'flow-controller');
    // The Endpoint Picker's word for a request whose client went away; sluice's own books keep the detail.
    expect(await metricSum(flow, `${QUEUE_DURATION}_count`, 'outcome="EvictedContextCancelled"')).toBe(1);
    expect(await metricValue(flow, 'sluice_flow_queue_exits_total', 'outcome="client_disconnected"')).toBe(1);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="dropped",reason="client_disconnected"')).toBeGreaterThanOrEqual(1);

    // Free the slot, then send a probe: had the cancelled request still been queued, it would have
    // been dispatched first. Only the probe is routed.
    hold.release();
    expect((await complete(cluster.gatewayUrl)).status).toBe(200);
    expect((await routed()) - routedBefore).toBe(1);
  });
});

describe('flow control: capacity and work conservation (two slots)', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    // Quantities in Kubernetes forms, as the Endpoint Picker's config writes them.
    const config = configFile(`
worker: { instances: 1, timeScale: 10 }
flowController:
  maxRequests: 5
  maxBytes: 1Mi
  defaultRequestTTL: 30s
  priorityBands:
    - { priority: 4, maxRequests: 1k }
    - { priority: -2, maxRequests: 2 }
  saturationDetector:
    type: concurrency-detector
    parameters: { maxConcurrency: 2 }
`);
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: ['--config', config, ...FREE_PORT_ARGS] });
  });
  afterAll(() => cluster?.stop());

  it('is work-conserving: while there is capacity nothing waits; the first request past it queues', async () => {
    const flow = serviceUrl(cluster, 'flow-controller');
    const holds = await Promise.all([occupy(cluster.gatewayUrl), occupy(cluster.gatewayUrl)]);
    // Both went straight through (room for two): each left flow control at once, well within the
    // 250 ms bucket (the 5 ms one could be missed on a loaded 2-core CI machine).
    expect(await metricSum(flow, `${QUEUE_DURATION}_bucket`, ['outcome="Dispatched"', 'le="0.25"'])).toBe(2);
    const third = complete(cluster.gatewayUrl);
    await eventually(async () => (await queued(cluster)) === 1, 5_000, 'the third request queued');
    holds[0].release();
    expect((await third).status).toBe(200);
    holds[1].release();
  });

  it('rejects with 429 past a band or the global limit, and a full sheddable band takes no space from the premium band', async () => {
    const gateway = cluster.gatewayUrl;
    const holds = await Promise.all([occupy(gateway), occupy(gateway)]);
    const order: string[] = [];
    // Two fit the sheddable band (maxRequests 2); the other two are turned away at once.
    const sheddable = Array.from({ length: 4 }, () => sendRecording(gateway, 'sheddable', order, slo('sheddable')));
    await eventually(async () => (await metricValue(gateway, 'sluice_requests_total', 'reason="flow_capacity"')) === 2, 5_000, 'two sheddable rejected');
    expect(await queued(cluster)).toBe(2);

    // The premium band still has room: the global limit (5) is what stops it.
    const critical = Array.from({ length: 3 }, () => sendRecording(gateway, 'critical', order, slo('critical')));
    await eventually(async () => (await queued(cluster)) === 5, 5_000, 'three critical queued beside them');
    const overGlobal = await complete(gateway, slo('critical'));
    expect(overGlobal.status).toBe(429);
    expect(overGlobal.headers.get(httpHeaders.droppedReason)).toBe('flow_capacity');
    expect(((await overGlobal.json()) as { error: { message: string } }).error.message).toContain('the flow controller holds 5 requests (maxRequests 5)');

    for (const h of holds) h.release();
    const answers = await Promise.all([...sheddable, ...critical]);
    const sheddableStatuses = answers.slice(0, 4).map((r) => r.status);
    expect(sheddableStatuses.filter((s) => s === 200)).toHaveLength(2);
    expect(sheddableStatuses.filter((s) => s === 429)).toHaveLength(2);
    const bandRejection = answers.slice(0, 4).find((r) => r.status === 429)!;
    expect(bandRejection.headers.get(httpHeaders.droppedReason)).toBe('flow_capacity');
    expect(((await bandRejection.json()) as { error: { message: string } }).error.message).toContain('priority band -2 holds 2 requests (maxRequests 2)');
    for (const res of answers.slice(4)) expect(res.status).toBe(200);
    // Once the slots free up, the premium band goes first.
    expect(order).toEqual(['critical', 'critical', 'critical', 'sheddable', 'sheddable']);

    // Under the Endpoint Picker's outcome words and both its names: three turned away, the rest
    // dispatched; each labelled with the pool and the model.
    const flow = serviceUrl(cluster, 'flow-controller');
    for (const prefix of ['inference_extension', 'llm_d_epp']) {
      expect(await metricSum(flow, `${prefix}_flow_control_request_enqueue_duration_seconds_count`, 'outcome="RejectedCapacity"'), prefix).toBe(3);
      const dispatched = await metricSum(flow, `${prefix}_flow_control_request_queue_duration_seconds_count`, ['outcome="Dispatched"', 'inference_pool="sluice"', 'model_name="qwen3-14b"', 'target_model_name="qwen3-14b"']);
      expect(dispatched, prefix).toBeGreaterThanOrEqual(5);
    }
  });

  it('lists every tracked flow at 0 once its queue is empty, under both names', async () => {
    const flow = serviceUrl(cluster, 'flow-controller');
    for (const name of [QUEUE_SIZE, 'llm_d_epp_flow_control_queue_size', 'inference_extension_flow_control_queue_bytes']) {
      const page = await (await fetch(`${flow}/metrics`)).text();
      const idle = page.split('\n').filter((l) => l.startsWith(`${name}{`) && l.includes('priority="-2"'));
      expect(idle, name).toHaveLength(1);
      expect(idle[0], name).toMatch(/inference_pool="sluice".*model_name="qwen3-14b".* 0$/);
    }
  });
});

describe('flow control: TTL eviction and shutdown', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        '--worker.instances=1',
        '--worker.timeScale=10',
        '--flowController.defaultRequestTTL=1s',
        '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1}}',
      ],
    });
  });
  afterAll(() => cluster?.stop());

  it('evicts a request whose TTL runs out in the queue with 503 ttl_expired', async () => {
    const hold = await occupy(cluster.gatewayUrl);
    const started = Date.now();
    const res = await complete(cluster.gatewayUrl);
    const waited = Date.now() - started;
    hold.release();
    expect(res.status).toBe(503);
    expect(res.headers.get(httpHeaders.droppedReason)).toBe('ttl_expired');
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('TTL ran out');
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="dropped",reason="ttl_expired"')).toBe(1);
  });

});

describe('flow control: shutdown hands the queue back', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--worker.instances=1', '--worker.timeScale=10', '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1}}'],
    });
  });
  afterAll(() => cluster?.stop());

  it('on SIGTERM every queued request goes back to its gateway, is queued again at the restarted flow controller, and completes', async () => {
    const hold = await occupy(cluster.gatewayUrl);
    const waiting = [complete(cluster.gatewayUrl), complete(cluster.gatewayUrl)];
    await eventually(async () => (await queued(cluster)) === 2, 900, 'two requests queued');
    const before = cluster.processes().find((p) => p.name === 'flow-controller')!;
    cluster.signal('flow-controller', 'SIGTERM');
    // The launcher restarts it (a process manager's job); the gateway re-submits to the new one.
    await eventually(() => Promise.resolve(cluster.processes().find((p) => p.name === 'flow-controller')!.pid !== before.pid), 10_000, 'the flow controller restarted');
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_migrations_total', 'reason="stage_shutdown"')) === 2, 10_000, 'both handed back');
    hold.release();
    const answers = await Promise.all(waiting);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="dropped",reason="shutdown"')).toBe(0);
  });
});

/** POST from a chosen local address (the whole of 127/8 is loopback on Linux). */
function completeFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'qwen3-14b', prompt: prompt(), max_tokens: 4 });
    const req = httpRequest(`${url}/v1/completions`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('flow control disabled (legacy mode) and the header trust boundary', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        '--worker.instances=1',
        '--worker.timeScale=10',
        '--flowController.enabled=false',
        '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1}}',
        // Only 127.0.0.1 may set scheduling headers; 127.0.0.2 is an untrusted client.
        '--gateway.trustedHeaderSources=[127.0.0.1/32]',
      ],
    });
  });
  afterAll(() => cluster?.stop());

  it('while saturated sheds only sheddable requests, at once, with 429; others pass', async () => {
    const hold = await occupy(cluster.gatewayUrl, slo('critical'));
    const shed = await complete(cluster.gatewayUrl, slo('sheddable'));
    expect(shed.status, await shed.clone().text()).toBe(429);
    expect(shed.headers.get(httpHeaders.droppedReason)).toBe('pool_saturated');
    expect((await complete(cluster.gatewayUrl, slo('batch'))).status).toBe(429);
    // Non-sheddable requests are not queued here: they pass and wait in the worker's own queue.
    const passing = [complete(cluster.gatewayUrl, slo('critical')), complete(cluster.gatewayUrl, slo('standard'))];
    hold.release();
    for (const res of await Promise.all(passing)) expect(res.status).toBe(200);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="rejected",reason="pool_saturated"')).toBe(2);
    // Not saturated any more: a sheddable request passes.
    expect((await complete(cluster.gatewayUrl, slo('sheddable'))).status).toBe(200);
  });

  it('ignores scheduling headers from an untrusted address: its "sheddable" request is scheduled as standard', async () => {
    const hold = await occupy(cluster.gatewayUrl, slo('critical'));
    const trusted = await completeFrom('127.0.0.1', cluster.gatewayUrl, slo('sheddable'));
    const untrusted = completeFrom('127.0.0.2', cluster.gatewayUrl, slo('sheddable'));
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_gateway_untrusted_headers_stripped_total')) === 1, 5_000, 'headers stripped');
    hold.release();
    expect(trusted).toBe(429);
    expect(await untrusted).toBe(200);
  });
});
