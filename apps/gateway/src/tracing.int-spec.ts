import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startOtlpReceiver, type LocalCluster, type OtlpReceiver } from '@sluice/testing';

/**
 * One request, one trace across all five services: the gateway's server span, then admission,
 * flow control, routing and the worker, each the child of the one before, with the context
 * carried in NATS headers. Checked with a real OTLP/HTTP receiver.
 */
let receiver: OtlpReceiver;
let cluster: LocalCluster;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [...FREE_PORT_ARGS, '--worker.timeScale=10', '--worker.instances=4'],
    env: receiver.exportEnv,
    parallel: true,
  });
});

afterAll(async () => {
  await cluster?.stop();
  await receiver?.close();
});

describe('distributed tracing', () => {
  it('gives every request one trace spanning all five services with a correct parent chain', async () => {
    const res = await fetch(`${cluster.gatewayUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-14b', prompt: 'trace me', max_tokens: 3 }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };

    const services = ['sluice-gateway', 'sluice-admission', 'sluice-flow-controller', 'sluice-router', 'sluice-worker'];
    const traceOf = (spans: readonly { traceId: string; attributes: Record<string, unknown>; service: string }[]) =>
      spans.find((s) => s.service === 'sluice-gateway' && s.attributes['sluice.request.id'] === id)?.traceId;
    await receiver.waitFor((spans) => {
      const traceId = traceOf(spans);
      return (
        traceId !== undefined &&
        services.every((svc) => spans.some((s) => s.traceId === traceId && s.service === svc)) &&
        spans.some((s) => s.traceId === traceId && s.name === 'worker.decode')
      );
    });

    const traceId = traceOf(receiver.spans)!;
    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    const byService = (service: string, name?: string) => {
      const found = trace.filter((s) => s.service === service && (name === undefined || s.name === name));
      expect(found, service).toHaveLength(1);
      return found[0]!;
    };
    const gateway = byService('sluice-gateway');
    const admission = byService('sluice-admission');
    const enqueue = byService('sluice-flow-controller', 'flow_control.enqueue');
    const flow = byService('sluice-flow-controller', 'flow_control.dispatch');
    const router = byService('sluice-router');
    const worker = byService('sluice-worker', 'worker.request');

    expect(gateway.parentSpanId).toBeUndefined();
    expect(gateway.name).toBe('POST /v1/completions');
    expect(gateway.kind).toBe(2); // SERVER
    expect(gateway.attributes['http.response.status_code']).toBe(200);
    expect(admission).toMatchObject({ name: 'admission.decide', parentSpanId: gateway.spanId });
    expect(admission.attributes['sluice.admission.decision']).toBe('admit');
    // Flow control: the enqueue decision and the time in the queue up to dispatch, both under admission.
    expect(enqueue).toMatchObject({ parentSpanId: admission.spanId });
    expect(enqueue.attributes['sluice.flow.outcome']).toBe('enqueued');
    expect(flow).toMatchObject({ parentSpanId: admission.spanId });
    expect(flow.attributes['sluice.flow.outcome']).toBe('dispatched');
    expect(flow.attributes['sluice.flow.saturation']).toBeLessThan(1);
    expect(router).toMatchObject({ name: 'router.route', parentSpanId: flow.spanId });
    expect(router.attributes['sluice.router.instance']).toBeTypeOf('string');
    // The decision's counterfactuals: regret, and the top candidates (k = 3 by default) best first.
    expect(router.attributes['sluice.router.regret']).toBeGreaterThanOrEqual(0);
    const candidates = router.events.filter((e) => e.name === 'candidate');
    expect(candidates.map((e) => e.attributes['sluice.router.candidate.rank'])).toEqual([0, 1, 2]);
    expect(candidates.some((e) => e.attributes['sluice.router.candidate.chosen'] === true && e.attributes['sluice.router.candidate.instance'] === router.attributes['sluice.router.instance'])).toBe(true);
    expect(worker).toMatchObject({ name: 'worker.request', parentSpanId: router.spanId });
    expect(worker.attributes['gen_ai.usage.output_tokens']).toBe(3);
    // The request's phases on the instance: queued → prefill → decode, children of worker.request.
    for (const phase of ['worker.queued', 'worker.prefill', 'worker.decode']) {
      expect(byService('sluice-worker', phase).parentSpanId, phase).toBe(worker.spanId);
    }
    expect(byService('sluice-worker', 'worker.prefill').attributes['sluice.worker.prefill_tokens']).toBeGreaterThan(0);
  });
});
