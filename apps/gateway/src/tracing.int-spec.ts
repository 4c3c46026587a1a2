import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import type { LocalCluster } from '@sluice/launcher';
import { jaegerUrlOf, slowestRequests, type RunReportFile } from '@sluice/report';
import { attributeMatches, readTelemetryDoc, postCompletion, runSluice, startTracedCluster, type DocumentedAttribute, type OtlpReceiver, type ReceivedSpan, type TracedCluster } from '@sluice/testing';

/**
 * One request, one trace across all five services: the gateway's server span, then admission,
 * flow control, routing and the worker, each the child of the one before, with the context
 * carried in NATS headers. Checked with a real OTLP/HTTP receiver, against docs/telemetry.md:
 * every span and event is documented, carries the attributes the doc says it always has, and
 * nothing the doc does not list.
 */
const doc = readTelemetryDoc();
/** What a completed request meets, in the doc's "set when" words: queued, routed by `weighted`. */
const COMPLETED_REQUEST = new Set(['always', 'valid request', 'enqueued', 'dispatched', 'routed', 'weighted', 'completed']);
/** OTLP's SpanKind numbers. */
const KINDS: Record<string, number> = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };

/** Attributes not in `documented`, and documented ones whose condition holds but are missing. */
function attributeProblems(at: string, actual: Record<string, unknown>, documented: readonly DocumentedAttribute[], conditions: ReadonlySet<string>): string[] {
  const names = Object.keys(actual);
  return [
    ...names.filter((n) => !documented.some((d) => attributeMatches(d.name, n))).map((n) => `${at}: ${n} is not documented`),
    ...documented.filter((d) => conditions.has(d.when) && !names.some((n) => attributeMatches(d.name, n))).map((d) => `${at}: ${d.name} (${d.when}) is missing`),
  ];
}

/** Everything about one received span that disagrees with docs/telemetry.md. */
function docProblems(span: ReceivedSpan, conditions: ReadonlySet<string>): string[] {
  const documented = doc.spans.find((d) => d.names.includes(span.name));
  if (!documented) return [`span ${span.name} (${span.service}) is not documented`];
  const at = `${span.name}`;
  return [
    ...(span.service === documented.service ? [] : [`${at}: service ${span.service}, documented ${documented.service}`]),
    ...(span.kind === KINDS[documented.kind] ? [] : [`${at}: kind ${span.kind}, documented ${documented.kind}`]),
    ...attributeProblems(`${at} resource`, span.resource, doc.resource, new Set(['always'])),
    ...attributeProblems(at, span.attributes, documented.attributes, conditions),
    ...span.events.flatMap((event) => {
      const documentedEvent = doc.events.find((e) => e.name === event.name && documented.names.includes(e.span));
      if (!documentedEvent) return [`${at}: event ${event.name} is not documented`];
      return attributeProblems(`${at} event ${event.name}`, event.attributes, documentedEvent.attributes, new Set(['always']));
    }),
  ];
}

/** The `instance_id` label of a service's metrics: the same id as its spans' `service.instance.id`. */
async function metricsInstanceId(url: string): Promise<string | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return /instance_id="([^"]+)"/.exec(text)?.[1];
}

let nextToken = 1;
const fresh = (n: number) => Array.from({ length: n }, () => nextToken++ % 128_000);

function complete(url: string, prompt: string | number[], maxTokens: number): Promise<Response> {
  return postCompletion(url, { prompt, max_tokens: maxTokens });
}

describe('distributed tracing', () => {
  let traced: TracedCluster;
  let receiver: OtlpReceiver;
  let cluster: LocalCluster;

  beforeAll(async () => {
    // Weighted routing, so candidates carry their scorers' scores; 8 KV blocks per instance,
    // so a few longer requests sharing an instance run out of blocks and are preempted.
    traced = await startTracedCluster(['--worker.timeScale=10', '--worker.instances=4', '--router.policy=weighted', '--worker.kvBlocks=8']);
    ({ receiver, cluster } = traced);
  });

  afterAll(() => traced?.stop());

  it('gives every request one trace spanning all five services with a correct parent chain and the documented attributes', async () => {
    const res = await complete(cluster.gatewayUrl, 'trace me', 3);
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };

    const services = ['sluice-gateway', 'sluice-admission', 'sluice-flow-controller', 'sluice-router', 'sluice-worker'];
    const traceOf = (spans: readonly ReceivedSpan[]) => spans.find((s) => s.service === 'sluice-gateway' && s.attributes['sluice.request.id'] === id)?.traceId;
    await receiver.waitFor((spans) => {
      const traceId = traceOf(spans);
      return (
        traceId !== undefined &&
        services.every((svc) => spans.some((s) => s.traceId === traceId && s.service === svc)) &&
        spans.some((s) => s.traceId === traceId && s.name === 'worker.decode')
      );
    });

    const traceId = traceOf(receiver.spans)!;
    // The answer names the trace its request is in, so a client can open it.
    expect(res.headers.get(httpHeaders.traceId)).toBe(traceId);
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
    expect(candidates[0]!.attributes).toHaveProperty(['sluice.router.candidate.scores.prefix-affinity']);
    expect(worker).toMatchObject({ name: 'worker.request', parentSpanId: router.spanId });
    expect(worker.attributes['sluice.worker.instance']).toBe(router.attributes['sluice.router.instance']);
    expect(worker.attributes['gen_ai.usage.output_tokens']).toBe(3);
    // The request's phases on the instance: queued → prefill → decode, children of worker.request.
    for (const phase of ['worker.queued', 'worker.prefill', 'worker.decode']) {
      expect(byService('sluice-worker', phase).parentSpanId, phase).toBe(worker.spanId);
    }
    expect(byService('sluice-worker', 'worker.prefill').attributes['sluice.worker.prefill_tokens']).toBeGreaterThan(0);

    // The conventions' required attributes, with their values: HTTP server, GenAI, messaging.
    expect(gateway.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'url.path': '/v1/completions',
      'server.address': new URL(cluster.gatewayUrl).hostname,
      'server.port': Number(new URL(cluster.gatewayUrl).port),
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'text_completion',
      'gen_ai.provider.name': 'sluice',
      'gen_ai.request.model': 'qwen3-14b',
      'gen_ai.response.id': id,
      'gen_ai.response.model': 'qwen3-14b',
      'gen_ai.response.finish_reasons': 'length',
      'gen_ai.usage.output_tokens': 3,
    });
    expect(gateway.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    for (const [span, group] of [[admission, 'sluice-admission'], [enqueue, 'sluice-flow-controller'], [router, 'sluice-router'], [worker, undefined]] as const) {
      expect(span.attributes, span.name).toMatchObject({ 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.operation.name': 'process' });
      expect(span.attributes['messaging.destination.name'], span.name).toMatch(/^sluice\.v1\./);
      expect(span.attributes['messaging.consumer.group.name'], span.name).toBe(group);
    }

    // Exactly the documented spans, each with its documented attributes; every documented span of
    // the five services a request crosses is here (the autoscaler's decisions are traces of their own).
    expect(trace.flatMap((s) => docProblems(s, COMPLETED_REQUEST))).toEqual([]);
    expect(doc.spans.filter((d) => services.includes(d.service) && !trace.some((s) => d.names.includes(s.name))).map((d) => d.names.join())).toEqual([]);
    expect(trace.filter((s) => 'sluice.request.id' in s.attributes && s.attributes['sluice.request.id'] !== id)).toEqual([]);

    // Resource: each service's spans name it and its instance, the same id its metrics carry.
    for (const service of cluster.services) {
      const spans = trace.filter((s) => s.service === `sluice-${service.name}`);
      const instanceId = await metricsInstanceId(service.url);
      expect(instanceId, service.name).toBeTypeOf('string');
      expect(new Set(spans.map((s) => s.resource['service.instance.id'])), service.name).toEqual(new Set([instanceId]));
    }
    expect(String(worker.attributes['sluice.worker.instance'])).toMatch(new RegExp(`^${String(worker.resource['service.instance.id'])}-r\\d+$`));
  });

  it('gives each record of `sluice run` its trace id, and report.html links the slowest to their traces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-trace-links-'));
    const workload = join(dir, 'workload.yaml');
    writeFileSync(
      workload,
      ['seed: 1', 'aggregate_rate: 40', 'num_requests: 12', 'clients:', '  - { id: c, tenant_id: acme, slo_class: standard, rate_fraction: 1, arrival: { process: poisson },',
        '      input_distribution: { type: constant, params: { value: 16 } }, output_distribution: { type: constant, params: { value: 2 } } }'].join('\n'),
    );
    const run = await runSluice(['run', workload, '--gateway', cluster.gatewayUrl, '--out', join(dir, 'out'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as RunReportFile;
    expect(report.records).toHaveLength(12);
    const traceIds = report.records.map((r) => r.traceId);
    expect(traceIds.every((t) => t !== undefined && /^[0-9a-f]{32}$/.test(t)), traceIds.join()).toBe(true);
    expect(new Set(traceIds).size).toBe(12);

    // Each is the trace of the gateway span of that very request (its gateway id).
    await receiver.waitFor((spans) => report.records.every((r) => spans.some((s) => s.service === 'sluice-gateway' && s.traceId === r.traceId)));
    for (const record of report.records) {
      const span = receiver.spans.find((s) => s.service === 'sluice-gateway' && s.traceId === record.traceId)!;
      expect(span.attributes['sluice.request.id']).toBe(record.gatewayRequestId);
    }

    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8');
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    const jaegerUrl = jaegerUrlOf(report.config);
    // The slowest 10 by TTFT, then by E2E, each row linked to its own trace.
    const listed = [...slowestRequests(report.records, 'ttft'), ...slowestRequests(report.records, 'e2e')].map((s) => `${jaegerUrl}/trace/${s.record.traceId}`);
    expect(listed).toHaveLength(20);
    expect(links).toEqual(listed);
  });

  it('records each preemption as an event on the worker span of the preempted request', async () => {
    // 48-token prompts (3 blocks) that grow to 88 tokens (6 blocks): two running at once on one
    // instance need 12 of its 8 blocks. 16 of them on 4 instances put four on each on average;
    // with 8 (two each) a loaded machine once staggered the arrivals enough that no pair overlapped.
    const responses = await Promise.all(Array.from({ length: 16 }, () => complete(cluster.gatewayUrl, fresh(48), 40)));
    expect(responses.map((r) => r.status)).toEqual(Array(16).fill(200));
    const preemptedSpans = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.name === 'worker.request' && s.events.some((e) => e.name === 'preempted'));
    await receiver.waitFor((spans) => preemptedSpans(spans).length > 0);

    for (const span of preemptedSpans(receiver.spans)) {
      expect(docProblems(span, COMPLETED_REQUEST)).toEqual([]);
      expect(span.attributes['gen_ai.usage.output_tokens']).toBe(40);
      for (const event of span.events.filter((e) => e.name === 'preempted')) {
        expect(event.attributes['sluice.worker.generated_tokens']).toBeGreaterThanOrEqual(0);
        expect(event.attributes['sluice.worker.generated_tokens']).toBeLessThan(40);
      }
    }
  });
});

/**
 * The standard sampler variable reaches every service. Stopping the cluster flushes what the
 * services buffered, so after stop() the receiver has every span it will get: always_on is the
 * control that this is so, always_off must then leave it empty.
 */
describe('OTEL_TRACES_SAMPLER', () => {
  it.each([
    ['always_on', 9],
    ['always_off', 0],
  ])('%s: a served request exports %i spans', async (sampler, expected) => {
    const traced = await startTracedCluster(['--worker.timeScale=10', '--worker.instances=1'], { OTEL_TRACES_SAMPLER: sampler });
    try {
      const res = await complete(traced.cluster.gatewayUrl, 'sample me or not', 3);
      expect(res.status).toBe(200);
      // A trace id only for a trace that is recorded: no link to a trace nobody exported.
      if (expected === 0) expect(res.headers.get(httpHeaders.traceId)).toBeNull();
      else expect(res.headers.get(httpHeaders.traceId)).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await traced.stop();
    }
    // One request's trace: gateway, admission, enqueue, dispatch, router, worker.request and its three
    // phases, each a span of its own name. A loaded CI run exported 10 (twice more here just after, then
    // not in 24 runs; a stage handling a re-sent copy would add one more of a name already there): what the
    // sampler decides is that all nine kinds are exported, none missing and none of another kind.
    const names = traced.receiver.spans.map((s) => s.name);
    if (expected === 0) expect(names).toEqual([]);
    else {
      expect(new Set(names).size, names.join(', ')).toBe(expected);
      expect(names.length, names.join(', ')).toBeGreaterThanOrEqual(expected);
    }
  });
});
