import { loadConfig, loadProfile } from '@sluice/config';
import type { RunRecord } from '@sluice/metrics';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOP_LATENCIES } from './hops.js';
import { simulate, simulateStreamed, type TwinResult } from './twin.js';

/**
 * The autoscaler in the twin (twin-autoscaler.ts): the same core as the live service, deciding on
 * the agenda, its set-instances reaching the worker one transit later, new instances routable
 * after the modelled start-up, leaving ones drained. The workload is a step: a trickle, a burst
 * far above what one instance serves, the trickle again.
 */

const MODEL_LOAD_MS = 5_000;
const INTERVAL_MS = 2_000;
const FLAGS = [
  '--worker.instances=3',
  '--worker.initialInstances=1',
  `--worker.modelLoadMs=${MODEL_LOAD_MS}`,
  '--autoscaler.enabled=true',
  '--autoscaler.metric=queueDepth',
  '--autoscaler.target=2',
  `--autoscaler.intervalMs=${INTERVAL_MS}`,
  // Leave as soon as the queue is gone, so one short run shows a scale-down too.
  '--autoscaler.scaleDown.stabilizationWindowMs=0',
  // Nothing leaves the flow-control queue by its TTL while the new instances load.
  '--flowController.defaultRequestTTL=60000',
];

/** Token ids of their own per request, so no two prompts share a KV block. */
function req(index: number, arrivalMs: number): WorkloadRequest {
  return { index, clientId: 'c', fairnessId: 't0', sloClass: 'standard', arrivalMs, inputTokens: Uint32Array.from({ length: 1024 }, (_, i) => (index + 1) * 1_000_000 + i), maxTokens: 64 };
}

/** Every `everyMs` over [fromMs, toMs). */
function evenly(fromMs: number, toMs: number, everyMs: number, first: number): WorkloadRequest[] {
  const out: WorkloadRequest[] = [];
  for (let t = fromMs; t < toMs; t += everyMs) out.push(req(first + out.length, t));
  return out;
}

function stepLoad(): WorkloadRequest[] {
  const before = evenly(0, 6_000, 500, 0);
  const burst = evenly(6_000, 14_000, 20, before.length);
  const after = evenly(14_000, 40_000, 500, before.length + burst.length);
  return [...before, ...burst, ...after];
}

function run(flags: readonly string[]): TwinResult {
  const config = loadConfig({ env: {}, argv: [...flags] });
  return simulate(stepLoad(), { config, profile: loadProfile(config) });
}

describe('twin: the autoscaler on a step of load', () => {
  const result = run(FLAGS);
  const log = result.autoscaler!;
  const ups = log.decisions.filter((d) => d.desired > d.current);
  const downs = log.decisions.filter((d) => d.desired < d.current);
  const registers = log.lifecycle.filter((e) => e.type === 'register');

  it('decides every interval while requests are outstanding, on the flow-control queue', () => {
    expect(log.decisions.length).toBeGreaterThan(10);
    log.decisions.forEach((d, i) => expect(d.atUs).toBe((i + 1) * INTERVAL_MS * 1000));
    expect(Math.max(...log.decisions.map((d) => d.value))).toBeGreaterThan(2);
  });

  it('scales up on the burst and each new instance registers one control hop plus the model load after the decision', () => {
    expect(ups.length).toBeGreaterThan(0);
    const joined = registers.filter((e) => e.atUs > 0);
    expect(joined).toHaveLength(ups.reduce((n, d) => n + d.desired - d.current, 0));
    for (const e of joined) {
      const decision = ups.filter((d) => d.atUs < e.atUs).at(-1)!;
      expect(e.atUs - decision.atUs).toBe(DEFAULT_HOP_LATENCIES.transitUs + MODEL_LOAD_MS * 1000);
    }
  });

  it('scales down once the queue is gone: each leaving instance drains, then deregisters', () => {
    expect(downs.length).toBeGreaterThan(0);
    const drains = log.lifecycle.filter((e) => e.type === 'drain');
    expect(drains.length).toBe(downs.reduce((n, d) => n + d.current - d.desired, 0));
    for (const drain of drains) {
      const gone = log.lifecycle.find((e) => e.type === 'deregister' && e.instanceId === drain.instanceId && e.atUs >= drain.atUs);
      expect(gone, `${drain.instanceId} deregisters after its drain`).toBeDefined();
    }
  });

  it('loses no request, and serves each only on an instance that was routable then', () => {
    const records: readonly RunRecord[] = result.records;
    expect(records.every((r) => r.outcome === 'completed')).toBe(true);
    for (const r of records) {
      const joinedBefore = registers.filter((e) => e.instanceId === r.instance && e.atUs / 1000 <= r.firstTokenMs!);
      expect(joinedBefore.length, `${r.id} on ${r.instance} at ${r.firstTokenMs} ms`).toBeGreaterThan(0);
    }
  });

  it('is the same run twice, and the same run streamed', () => {
    const again = run(FLAGS);
    expect(again.autoscaler).toEqual(result.autoscaler);
    expect(again.records).toEqual(result.records);
    const config = loadConfig({ env: {}, argv: [...FLAGS] });
    const streamed = simulateStreamed(stepLoad(), () => {}, { config, profile: loadProfile(config) });
    expect(streamed.autoscaler).toEqual(result.autoscaler);
  });
});

describe('twin: without the autoscaler', () => {
  it('has no autoscaler log, and every instance serves from the start', () => {
    const config = loadConfig({ env: {}, argv: ['--worker.instances=3'] });
    const result = simulate(stepLoad().slice(0, 50), { config, profile: loadProfile(config) });
    expect(result.autoscaler).toBeUndefined();
    expect(new Set(result.records.map((r) => r.instance)).size).toBe(3);
  });
});

describe('twin: a request on its way to an instance that starts draining', () => {
  // Two instances at start; the first decision (1 s) finds no queue and takes one away. With a
  // router that takes 300 ms over each decision, the requests it sent to the leaving instance
  // just before arrive after its drain: no responder there, so the router sends them elsewhere.
  const flags = ['--worker.instances=2', '--autoscaler.enabled=true', '--autoscaler.intervalMs=1000', '--autoscaler.scaleDown.stabilizationWindowMs=0', '--router.policy=round-robin'];
  const config = loadConfig({ env: {}, argv: flags });
  const hops = { ...DEFAULT_HOP_LATENCIES, routerUs: 300_000 };
  const picks = new Map<string, string[]>();
  const requests = evenly(0, 3_000, 50, 0);
  const result = simulate(requests, {
    config,
    profile: loadProfile(config),
    hops,
    checkInvariants: true,
    observer: { routingDecided: (request, _policy, decision) => picks.set(request.id, [...(picks.get(request.id) ?? []), decision?.instance.instanceId ?? 'none']) },
  });
  const drain = result.autoscaler!.lifecycle.find((e) => e.type === 'drain')!;

  it('the leaving instance drains one transit after the decision', () => {
    expect(drain.instanceId).toBe('twin-r1');
    expect(drain.atUs).toBe(1_000_000 + hops.transitUs);
  });

  it('is refused there and routed again, to an instance that takes it; none is lost', () => {
    const rerouted = [...picks.entries()].filter(([, p]) => p.length > 1);
    expect(rerouted.length).toBeGreaterThan(0);
    for (const [id, p] of rerouted) expect(p, id).toEqual(['twin-r1', 'twin-r0']);
    const byId = new Map(result.records.map((r) => [r.id, r]));
    for (const [id] of rerouted) expect(byId.get(id)!.instance).toBe('twin-r0');
    expect(result.records.every((r) => r.outcome === 'completed')).toBe(true);
  });
});

describe('twin: a pool that starts at zero (KEDA activation)', () => {
  // No instance at start and none until a request waits: the worker process is known to the
  // autoscaler only by its presence beats, which must outlast the staleness sweep (3 s) until the
  // first request arrives at 5 s.
  const flags = ['--worker.instances=2', '--worker.initialInstances=0', '--worker.modelLoadMs=2000', '--autoscaler.enabled=true', '--autoscaler.minInstances=0', '--autoscaler.intervalMs=1000'];
  const config = loadConfig({ env: {}, argv: flags });
  const result = simulate(evenly(5_000, 6_000, 100, 0), { config, profile: loadProfile(config) });
  const log = result.autoscaler!;

  it('stays at zero while nothing waits, activates on the first queued request, and serves it after the start-up', () => {
    const first = log.decisions.find((d) => d.desired > 0)!;
    expect(log.decisions.filter((d) => d.atUs < first.atUs).every((d) => d.rule === 'inactive' && d.desired === 0)).toBe(true);
    expect(first).toMatchObject({ rule: 'activate', current: 0, desired: 1 });
    expect(first.atUs).toBe(6_000_000);
    expect(log.lifecycle[0]).toMatchObject({ type: 'register', atUs: first.atUs + DEFAULT_HOP_LATENCIES.transitUs + 2_000_000 });
    expect(result.records.every((r) => r.outcome === 'completed')).toBe(true);
  });
});
