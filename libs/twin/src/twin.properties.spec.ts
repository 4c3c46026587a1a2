import fc from 'fast-check';
import { loadConfig, loadProfile } from '@sluice/config';
import { SloClassSchema } from '@sluice/contracts';
import { buildReport, type RunRecord } from '@sluice/metrics';
import { FlowControlConfigSchema } from '@sluice/policies';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOP_LATENCIES } from './hops.js';
import { simulate, type TwinConfig } from './twin.js';

const profile = loadProfile(loadConfig());
const base = loadConfig();
const H = DEFAULT_HOP_LATENCIES;
/** Every hop a served request's TTFT has besides the stage timings: gateway, 4 transits, flow, the way back. */
const FIXED_PATH_MS = (H.gatewayUs + 4 * H.transitUs + H.flowUs + H.returnUs) / 1000;
/** No step is shorter than β0 (truncated): tokens of one request come from distinct, back-to-back steps. */
const MIN_STEP_MS = Math.trunc(profile.beta[0]) / 1000;
const EPS = 1e-9;

// ── random workloads ───────────────────────────────────────────────────────────────────────────

const requestArb = fc.record({
  /** Often bunched into the first 200 ms, so requests contend (queues, TTLs, full bands, preemptions). */
  arrivalMs: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 2_000 })),
  input: fc.integer({ min: 1, max: 600 }),
  /** Tokens taken from the tenant's shared prefix (prefix-cache hits across requests). */
  sharedPrefix: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 96 })),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  maxTokens: fc.integer({ min: 1, max: 40 }),
  sloClass: fc.constantFrom(...SloClassSchema.options),
  fairness: fc.integer({ min: 0, max: 2 }),
});

const workloadArb = fc.array(requestArb, { minLength: 1, maxLength: 40 }).map((specs): WorkloadRequest[] =>
  [...specs]
    .sort((a, b) => a.arrivalMs - b.arrivalMs)
    .map((s, index) => {
      const shared = Math.min(s.sharedPrefix, s.input);
      return {
        index,
        clientId: `c${index}`,
        fairnessId: `t${s.fairness}`,
        sloClass: s.sloClass,
        arrivalMs: s.arrivalMs,
        inputTokens: Uint32Array.from({ length: s.input }, (_, i) => (i < shared ? s.fairness * 10_000 + i : 1_000_000 + ((s.seed * 7919 + i * 104_729) % 150_000))),
        maxTokens: s.maxTokens,
      };
    }),
);

// ── random configs ─────────────────────────────────────────────────────────────────────────────

const detectorArb = fc.oneof(
  fc.record({
    type: fc.constant('utilization-detector' as const),
    parameters: fc.record({ queueDepthThreshold: fc.integer({ min: 1, max: 5 }), kvCacheUtilThreshold: fc.constantFrom(0.5, 0.8, 0.95) }),
  }),
  fc.record({
    type: fc.constant('concurrency-detector' as const),
    parameters: fc.record({ maxConcurrency: fc.integer({ min: 1, max: 4 }), concurrencyMode: fc.constant('requests' as const) }),
  }),
  fc.record({
    type: fc.constant('concurrency-detector' as const),
    parameters: fc.record({ maxConcurrency: fc.integer({ min: 200, max: 2_000 }), concurrencyMode: fc.constant('tokens' as const) }),
  }),
);

const configArb = fc.record({
  instances: fc.integer({ min: 1, max: 4 }),
  admission: fc.oneof(
    fc.constant({ policy: 'always-admit', params: {} }),
    fc.record({ policy: fc.constant('token-bucket'), params: fc.record({ capacity: fc.integer({ min: 100, max: 8_000 }), refillRate: fc.integer({ min: 0, max: 5_000 }) }) }),
  ),
  flowEnabled: fc.boolean(),
  detector: detectorArb,
  ttlMs: fc.oneof(fc.constant(60_000), fc.integer({ min: 20, max: 500 })),
  bandMaxRequests: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
  routing: fc.constantFrom('round-robin', 'least-loaded', 'weighted'),
  snapshotRefreshIntervalMs: fc.constantFrom(0, 50),
  loadIntervalMs: fc.constantFrom(0, 50),
  scheduler: fc.constantFrom('fcfs', 'priority-fcfs', 'sjf'),
  maxRunning: fc.constantFrom(2, 8, 256),
  maxBatchTokens: fc.constantFrom(128, 512, 2048),
  /** Small KV caches force preemptions (and make the largest prompts unservable). */
  kvBlocks: fc.oneof(fc.constant(profile.totalKvBlocks), fc.integer({ min: 8, max: 80 })),
  seed: fc.integer({ min: 0, max: 1_000 }),
});
type ConfigCase = typeof configArb extends fc.Arbitrary<infer C> ? C : never;

function twinConfig(c: ConfigCase): TwinConfig {
  return {
    models: base.models,
    admission: { ...base.admission, policy: [c.admission.policy], policies: { [c.admission.policy]: c.admission.params } },
    flowController: {
      heartbeatTimeoutMs: base.flowController.heartbeatTimeoutMs,
      ...FlowControlConfigSchema.parse({
        defaultRequestTTL: c.ttlMs,
        defaultPriorityBand: { maxRequests: c.bandMaxRequests },
        saturationDetector: c.detector,
      }),
      enabled: c.flowEnabled,
    },
    router: { ...base.router, policy: c.routing, policies: {}, snapshotRefreshIntervalMs: c.snapshotRefreshIntervalMs, seed: c.seed },
    worker: {
      ...base.worker,
      kvBlocks: c.kvBlocks,
      instances: c.instances,
      model: base.worker.model,
      scheduler: c.scheduler,
      maxRunning: c.maxRunning,
      maxBatchTokens: c.maxBatchTokens,
      loadIntervalMs: c.loadIntervalMs,
    },
  };
}

function runCase(requests: readonly WorkloadRequest[], c: ConfigCase): RunRecord[] {
  return simulate(requests, { config: twinConfig(c), profile, checkInvariants: true }).records;
}

// ── the properties ─────────────────────────────────────────────────────────────────────────────

function checkRecords(requests: readonly WorkloadRequest[], records: readonly RunRecord[]): void {
  // One record per request, in request order.
  expect(records.map((r) => r.id)).toEqual(requests.map((r) => `r${r.index}`));

  // Every request ended: nothing in flight.
  const count = (o: RunRecord['outcome']) => records.filter((r) => r.outcome === o).length;
  expect(count('in_flight')).toBe(0);
  expect(count('completed') + count('rejected') + count('dropped') + count('failed')).toBe(requests.length);
  expect(buildReport(records, { expectedRequests: requests.length }).conservation.check.balanced).toBe(true);

  records.forEach((r, i) => {
    const req = requests[i]!;
    expect(r.arrivalMs).toBe(req.arrivalMs);
    expect(r.fairnessId).toBe(req.fairnessId);
    expect(r.sloClass).toBe(req.sloClass);
    expect(r.endMs).toBeDefined();
    expect(r.endMs!).toBeGreaterThanOrEqual(r.arrivalMs);
    if (r.outcome !== 'completed') {
      expect(r.outputTokens).toBe(0);
      expect(r.firstTokenMs).toBeUndefined();
      expect(r.reason).toBeDefined();
      expect(r.stage).toBeDefined();
      expect(r.status).toBeGreaterThanOrEqual(400);
      return;
    }
    // Causality: arrival ≤ first token ≤ end, token times non-decreasing (at least one step apart).
    expect(r.status).toBe(200);
    expect(r.outputTokens).toBe(req.maxTokens);
    const times = r.tokenTimesMs!;
    expect(times).toHaveLength(req.maxTokens);
    expect(r.firstTokenMs).toBe(times[0]);
    expect(r.firstTokenMs!).toBeGreaterThanOrEqual(r.arrivalMs);
    expect(r.endMs).toBe(times.at(-1));
    for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(MIN_STEP_MS - EPS);
    // Stage timings: all ≥ 0, and with the fixed hops they account for the whole TTFT and E2E.
    const t = r.timings!;
    for (const v of [t.admissionMs, t.flowQueueMs, t.routingMs, t.workerQueueMs, t.prefillMs, t.decodeMs]) {
      expect(v).toBeDefined();
      expect(v!).toBeGreaterThanOrEqual(0);
    }
    // The queueing delay alone is at least α0, the prefill at least one β0 step.
    expect(t.workerQueueMs! + EPS).toBeGreaterThanOrEqual(Math.trunc(profile.alpha[0]) / 1000);
    expect(t.prefillMs! + EPS).toBeGreaterThanOrEqual(MIN_STEP_MS);
    const ttft = r.firstTokenMs! - r.arrivalMs;
    expect(ttft).toBeCloseTo(FIXED_PATH_MS + t.admissionMs! + t.flowQueueMs! + t.routingMs! + t.workerQueueMs! + t.prefillMs!, 6);
    expect(r.endMs! - r.firstTokenMs!).toBeCloseTo(t.decodeMs!, 6);
    expect(r.instance).toMatch(/^twin-r\d+$/);
  });
}

describe('twin: properties over random workloads and configs', () => {
  it('every request ends exactly once, causally, with balanced books (KV and work conservation checked at every step)', () => {
    fc.assert(
      fc.property(workloadArb, configArb, (requests, c) => {
        const records = runCase(requests, c);
        checkRecords(requests, records);
        // Instances named by the config only.
        for (const r of records) if (r.instance) expect(Number(r.instance.slice('twin-r'.length))).toBeLessThan(c.instances);
        // Rejections and drops name the stages that can produce them.
        for (const r of records.filter((x) => x.outcome !== 'completed')) {
          expect(['gateway', 'admission', 'flow', 'router', 'worker']).toContain(r.stage);
          if (c.admission.policy === 'always-admit') expect(r.stage).not.toBe('admission');
          if (r.reason === 'ttl_expired') expect(c.flowEnabled).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('flow control never has more requests in flight than the concurrency detector allows', () => {
    // Rebuilt from the records: a served request left flow control at arrival + gateway + 2 transits
    // + admission + its flow queue time, and flow control saw it done one transit after its last
    // token left the instance (the client saw that token a return hop later). With a KV cache
    // large enough for any prompt every dispatched request is served, so these are all of them.
    const gated = fc.tuple(configArb, fc.integer({ min: 1, max: 3 })).map(([c, maxConcurrency]): ConfigCase => ({
      ...c,
      flowEnabled: true,
      detector: { type: 'concurrency-detector', parameters: { maxConcurrency, concurrencyMode: 'requests' } },
      kvBlocks: profile.totalKvBlocks,
    }));
    fc.assert(
      fc.property(workloadArb, gated, (requests, c) => {
        const records = runCase(requests, c);
        checkRecords(requests, records);
        const limit = c.instances * (c.detector.parameters as { maxConcurrency: number }).maxConcurrency;
        const us = (ms: number) => Math.round(ms * 1000);
        const edges: [number, number][] = [];
        for (const r of records.filter((x) => x.outcome === 'completed')) {
          edges.push([us(r.arrivalMs) + H.gatewayUs + 2 * H.transitUs + H.admissionUs + us(r.timings!.flowQueueMs!), +1]);
          edges.push([us(r.endMs!) - H.returnUs + H.transitUs, -1]);
        }
        // At equal times the done events run first (and the dispatches they trigger after them).
        edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        let inFlight = 0;
        for (const [, delta] of edges) {
          inFlight += delta;
          expect(inFlight).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic: the same workload and config give byte-identical records', () => {
    fc.assert(
      fc.property(workloadArb, configArb, (requests, c) => {
        expect(JSON.stringify(runCase(requests, c))).toBe(JSON.stringify(runCase(requests, c)));
      }),
      { numRuns: 15 },
    );
  });

  it('with nothing limiting, every request completes', () => {
    const open = fc.record({
      instances: fc.integer({ min: 1, max: 4 }),
      routing: fc.constantFrom('round-robin', 'least-loaded', 'weighted'),
      flowEnabled: fc.boolean(),
      seed: fc.integer({ min: 0, max: 1_000 }),
    });
    fc.assert(
      fc.property(workloadArb, open, (requests, o) => {
        const c: ConfigCase = {
          instances: o.instances,
          admission: { policy: 'always-admit', params: {} },
          flowEnabled: o.flowEnabled,
          detector: { type: 'concurrency-detector', parameters: { maxConcurrency: 1_000, concurrencyMode: 'requests' } },
          ttlMs: 60_000,
          bandMaxRequests: 0,
          routing: o.routing,
          snapshotRefreshIntervalMs: 50,
          loadIntervalMs: 50,
          scheduler: 'fcfs',
          maxRunning: 256,
          maxBatchTokens: 2048,
          kvBlocks: profile.totalKvBlocks,
          seed: o.seed,
        };
        const records = runCase(requests, c);
        checkRecords(requests, records);
        expect(records.every((r) => r.outcome === 'completed')).toBe(true);
      }),
      { numRuns: 20 },
    );
  });
});
