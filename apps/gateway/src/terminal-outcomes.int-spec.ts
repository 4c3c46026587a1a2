import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, postCompletion } from '@sluice/testing';

/** Every request ends in exactly one terminal outcome, also when a stage is missing or slow. */

function complete(url: string, body: object, signal?: AbortSignal): Promise<Response> {
  return postCompletion(url, { prompt: 'outcomes', ...body }, signal ? { signal } : {});
}

describe('with a slow worker and a short deadline', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--gateway.requestTimeoutMs=400', '--worker.instances=1'],
    });
  });
  afterAll(() => cluster?.stop());

  it('answers 504 when the deadline passes, counted as failed: timeout', async () => {
    const before = await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="failed",reason="timeout"');
    const res = await complete(cluster.gatewayUrl, { max_tokens: 60 });
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('timeout');
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="failed",reason="timeout"')).toBe(before + 1);
  });

  it('counts a client that hangs up as dropped: client_disconnected, and the worker lets the request go', async () => {
    const router = cluster.services.find((s) => s.name === 'router')!;
    const aborter = new AbortController();
    const res = await complete(cluster.gatewayUrl, { max_tokens: 60, stream: true }, aborter.signal);
    const reader = res.body!.getReader();
    await reader.read(); // the first chunk arrived: the request is on the worker
    aborter.abort();
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'reason="client_disconnected"')) === 1);
    // The cancel reached the worker, which reported the request done: the router's in-flight count drops to 0.
    await eventually(async () => (await metricValue(router.url, 'sluice_router_inflight', 'worker_instance=')) === 0);
  });
});

describe('with no admission service', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      // Re-submission tries an absent stage for two heartbeat timeouts (a restart in progress).
      configArgs: [...FREE_PORT_ARGS, '--nats.ackTimeoutMs=300', '--gateway.heartbeatTimeoutMs=2000'],
      services: ['worker', 'router', 'flow-controller', 'gateway'],
    });
  });
  afterAll(() => cluster?.stop());

  it('tries admission for two heartbeat timeouts (it may be restarting), then ends the request with 503 admission_unavailable, long before the deadline', async () => {
    const started = Date.now();
    const res = await complete(cluster.gatewayUrl, { max_tokens: 2 });
    expect(res.status).toBe(503);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(3_000);
    expect(waited).toBeLessThan(10_000);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('admission_unavailable');
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_total', 'outcome="failed",reason="admission_unavailable"')).toBe(1);
    expect(await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight', '')).toBe(0);
  });
});
