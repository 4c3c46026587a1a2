import { micros, type LifecycleEvent, type LoadSnapshot, type Micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { Agenda } from '../testing/recorder.js';
import type { AutoscalerDecision } from './autoscaler.effects.js';
import { autoscalerSettingsFrom, type AutoscalerConfigSection } from './autoscaler.settings.js';
import { AutoscalerStage, type AutoscalerWakeUp } from './autoscaler.stage.js';

const S = 1_000_000;
/** Silence for this long means gone. */
const STALE_MS = 20_000;
const HPA_DEFAULTS: AutoscalerConfigSection = {
  metric: 'queueDepth',
  target: 4,
  minInstances: 1,
  intervalMs: 15_000,
  tolerance: 0.1,
  scaleUp: { stabilizationWindowMs: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodMs: 15_000 }, { type: 'Pods', value: 4, periodMs: 15_000 }] },
  scaleDown: { stabilizationWindowMs: 300_000, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodMs: 15_000 }] },
  activationTarget: 0,
  cooldownMs: 300_000,
};

/** One worker process hosting 8 instances, one running at start. */
function autoscaler(config: Partial<AutoscalerConfigSection> = {}, worker = { processes: 1, instances: 8, initialInstances: 1 }) {
  const agenda = new Agenda<AutoscalerWakeUp>();
  const calls: { workerId: string; instances: number; atUs: number }[] = [];
  const decisions: AutoscalerDecision[] = [];
  const stage = new AutoscalerStage(
    autoscalerSettingsFrom({ ...HPA_DEFAULTS, ...config }, worker, STALE_MS),
    { setActive: (workerId, instances, atUs) => calls.push({ workerId, instances, atUs }), decided: (d) => decisions.push(d) },
    agenda.wakeUps((kind, atUs) => stage.wake(kind, atUs)),
  );
  stage.start(micros(0));
  return { stage, agenda, calls, decisions };
}

const lifecycle = (instanceId: string, type: LifecycleEvent['type'], workerId = 'w'): LifecycleEvent => ({ instanceId, workerId, rank: Number(instanceId.slice(-1)), model: 'qwen3-14b', totalKvBlocks: 100, type, atUs: micros(0) });
const queue = (requests: number, atUs: Micros) => ({ processId: 'flow-1', atUs, bands: requests > 0 ? [{ model: 'qwen3-14b', priority: 0, requests }] : [] });
const snapshot = (instanceId: string, kvUtilization: number, inFlight = 0): LoadSnapshot => ({
  instanceId,
  workerId: 'w',
  rank: 0,
  atUs: micros(0),
  queueDepth: 0,
  batchSize: 0,
  inFlight,
  kvUtilization,
  freeKvBlocks: 10,
  totalKvBlocks: 100,
  activePrefillTokens: 0,
  activeDecodeBlocks: 0,
  cacheHitRate: 0,
  preemptions: 0,
});

describe('the autoscaler on flow-control queue depth (KEDA queue length, HPA AverageValue)', () => {
  it('decides every interval; 17 queued at 4 per instance asks for 5, the scale-up limit of 1 + 4', () => {
    const { stage, agenda, calls, decisions } = autoscaler();
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    stage.onFlowQueue(queue(17, micros(14 * S)));
    agenda.runUntil(15 * S);
    expect(decisions).toEqual([{ atUs: 15 * S, metric: 'queueDepth', value: 17, current: 1, ready: 1, recommended: 5, stabilized: 5, desired: 5, rule: 'hpa' }]);
    expect(calls).toEqual([{ workerId: 'w', instances: 5, atUs: 15 * S }]);
  });

  it('counts what it asked for as current, ready or not: the same demand 15 s later starts nothing more', () => {
    const { stage, agenda, calls } = autoscaler();
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    stage.onFlowQueue(queue(17, micros(14 * S)));
    agenda.runUntil(15 * S);
    for (const id of ['w-r0']) stage.onLifecycle(lifecycle(id, 'heartbeat'), micros(29 * S));
    stage.onFlowQueue(queue(17, micros(29 * S)));
    agenda.runUntil(30 * S);
    expect(calls).toHaveLength(1);
  });

  it('holds a scale-down for the 300 s window, then goes to the highest recommendation within it', () => {
    const { stage, agenda, calls, decisions } = autoscaler({ intervalMs: 60_000 });
    const alive = (atUs: number) => {
      for (let r = 0; r < 8; r++) stage.onLifecycle(lifecycle(`w-r${r}`, r === 0 ? 'register' : 'heartbeat'), micros(atUs));
    };
    alive(59 * S);
    stage.onFlowQueue(queue(20, micros(59 * S)));
    agenda.runUntil(60 * S); // 20 / 4 → 5
    expect(calls.at(-1)?.instances).toBe(5);
    for (let t = 120; t <= 420; t += 60) {
      alive((t - 1) * S);
      stage.onFlowQueue(queue(0, micros((t - 1) * S)));
      agenda.runUntil(t * S);
    }
    // 0 queued from 120 s on: the 5 recommended at 60 s counts while it is younger than 300 s
    // (Kubernetes keeps a recommendation strictly after now − window), so until 300 s.
    expect(decisions.map((d) => [d.atUs / S, d.recommended, d.desired])).toEqual([
      [60, 5, 5],
      [120, 0, 5],
      [180, 0, 5],
      [240, 0, 5],
      [300, 0, 5],
      [360, 0, 1],
      [420, 0, 1],
    ]);
  });
});

describe('a late timer', () => {
  it('keeps the rate limits on the schedule: a decision run 0.3 s late still leaves the 15 s period by the next', () => {
    const onePodPer15s = { stabilizationWindowMs: 0, selectPolicy: 'Max' as const, policies: [{ type: 'Pods' as const, value: 1, periodMs: 15_000 }] };
    const agenda = new Agenda<AutoscalerWakeUp>();
    const calls: number[] = [];
    const stage = new AutoscalerStage(
      autoscalerSettingsFrom({ ...HPA_DEFAULTS, scaleUp: onePodPer15s }, { processes: 1, instances: 8, initialInstances: 1 }, STALE_MS),
      { setActive: (_id, instances) => calls.push(instances), decided: () => undefined },
      // The first decision runs 0.3 s after the time it was due, as a busy event loop's timer would; the next on time.
      { wakeAt: (kind, atUs) => agenda.add(kind, atUs, () => stage.wake(kind, atUs, micros(atUs === 15 * S ? atUs + 300_000 : atUs))) },
    );
    stage.start(micros(0));
    for (const t of [14, 29]) {
      stage.onLifecycle(lifecycle('w-r0', t === 14 ? 'register' : 'heartbeat'), micros(t * S));
      stage.onFlowQueue(queue(40, micros(t * S)));
      agenda.runUntil((t + 1) * S);
    }
    // One instance each decision; with the event kept at its run time (15.3 s) the second, at
    // 30 s, would have found it inside the period and added none.
    expect(calls).toEqual([2, 3]);
  });
});

describe('the autoscaler on KV utilisation (HPA Utilization over the ready instances)', () => {
  it('asks for ceil(ready × mean / target): 2 ready at 0.9 against 0.6 → 3', () => {
    const { stage, agenda, calls } = autoscaler({ metric: 'kvUtilization', target: 0.6 }, { processes: 1, instances: 8, initialInstances: 2 });
    for (const id of ['w-r0', 'w-r1']) {
      stage.onLifecycle(lifecycle(id, 'register'), micros(0));
      stage.onSnapshot(snapshot(id, 0.9));
    }
    agenda.runUntil(15 * S);
    expect(calls).toEqual([{ workerId: 'w', instances: 3, atUs: 15 * S }]);
  });

  it('a draining instance is not ready and its snapshot does not count', () => {
    const { stage, agenda, decisions } = autoscaler({ metric: 'kvUtilization', target: 0.6 }, { processes: 1, instances: 8, initialInstances: 2 });
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    stage.onSnapshot(snapshot('w-r0', 0.6));
    stage.onLifecycle(lifecycle('w-r1', 'register'), micros(0));
    stage.onSnapshot(snapshot('w-r1', 1));
    stage.onLifecycle(lifecycle('w-r1', 'drain'), micros(0));
    agenda.runUntil(15 * S);
    expect(decisions[0]).toMatchObject({ value: 0.6, ready: 1, current: 2, recommended: 2 });
  });
});

describe('the autoscaler against report times from the future (a sender clock ahead, or forged)', () => {
  it('counts a queue report dated in the future as taken at the decision that first sees it, and forgets it one staleness period later', () => {
    const { stage, agenda, decisions } = autoscaler({ intervalMs: 5_000 });
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    stage.onFlowQueue({ ...queue(40, micros(2 ** 55)), processId: 'made-up' });
    for (let t = 5; t <= 30; t += 5) stage.onLifecycle(lifecycle('w-r0', 'heartbeat'), micros(t * S));
    agenda.runUntil(30 * S);
    // Seen first at 5 s, stale after 20 s more: counted at 5…25 s, gone at 30 s.
    expect(decisions.map((d) => d.value)).toEqual([40, 40, 40, 40, 40, 0]);
  });
});

describe('KEDA at the edges of zero (minInstances 0)', () => {
  it('leaves zero for one instance when the queue rises above the activation target, and no sooner', () => {
    const { stage, agenda, calls, decisions } = autoscaler({ minInstances: 0, activationTarget: 2, intervalMs: 1_000 }, { processes: 1, instances: 8, initialInstances: 0 });
    stage.onWorker('w', micros(0));
    stage.onFlowQueue(queue(2, micros(500_000)));
    agenda.runUntil(1 * S);
    expect(decisions[0]).toMatchObject({ rule: 'inactive', desired: 0 });
    stage.onWorker('w', micros(1_500_000));
    stage.onFlowQueue(queue(3, micros(1_500_000)));
    agenda.runUntil(2 * S);
    expect(decisions[1]).toMatchObject({ rule: 'activate', desired: 1 });
    expect(calls).toEqual([{ workerId: 'w', instances: 1, atUs: 2 * S }]);
  });

  it('goes back to zero once the metric stayed at or below the activation target for the cooldown', () => {
    const { stage, agenda, calls } = autoscaler({ minInstances: 0, activationTarget: 0, intervalMs: 1_000, cooldownMs: 3_000 }, { processes: 1, instances: 8, initialInstances: 1 });
    for (let t = 0; t <= 6; t++) {
      stage.onWorker('w', micros(t * S));
      stage.onLifecycle(lifecycle('w-r0', t === 0 ? 'register' : 'heartbeat'), micros(t * S));
      stage.onFlowQueue(queue(t < 2 ? 4 : 0, micros(t * S)));
      agenda.runUntil(t * S + 1);
    }
    // Active at 1 s (4 queued); inactive from 2 s; 3 s of cooldown end at 4 s.
    expect(calls).toEqual([{ workerId: 'w', instances: 0, atUs: 4 * S }]);
  });
});

describe('what it knows of the workers', () => {
  it('spreads a scale-up over worker processes evenly', () => {
    const { stage, agenda, calls } = autoscaler({}, { processes: 2, instances: 4, initialInstances: 1 });
    stage.onLifecycle(lifecycle('a-r0', 'register', 'a'), micros(0));
    stage.onLifecycle(lifecycle('b-r0', 'register', 'b'), micros(0));
    stage.onFlowQueue(queue(20, micros(14 * S)));
    agenda.runUntil(15 * S);
    // 20 / 4 → 5, within 2 + 4: a gets 3, b gets 2.
    expect(calls).toEqual([{ workerId: 'a', instances: 3, atUs: 15 * S }, { workerId: 'b', instances: 2, atUs: 15 * S }]);
  });

  it('never asks for more than the known workers host', () => {
    const { stage, agenda, decisions } = autoscaler({ maxInstances: 8 }, { processes: 2, instances: 4, initialInstances: 1 });
    stage.onLifecycle(lifecycle('a-r0', 'register', 'a'), micros(0));
    stage.onFlowQueue(queue(400, micros(14 * S)));
    agenda.runUntil(15 * S);
    expect(decisions[0]?.desired).toBe(4);
  });

  it('restarted, counts a worker at the instances it has seen register, so a quiet pool shrinks to its floor', () => {
    const { stage, agenda, calls } = autoscaler({ scaleDown: { ...HPA_DEFAULTS.scaleDown, stabilizationWindowMs: 0 } });
    for (let r = 0; r < 4; r++) stage.onLifecycle(lifecycle(`w-r${r}`, 'register'), micros(14 * S));
    expect(stage.sizes()).toEqual({ ready: 4, requested: 4 });
    stage.onFlowQueue(queue(0, micros(14 * S)));
    agenda.runUntil(15 * S);
    expect(calls).toEqual([{ workerId: 'w', instances: 1, atUs: 15 * S }]);
  });

  it('a heartbeat does not raise the count: an instance a scale-down is about to drain may still beat', () => {
    const { stage } = autoscaler();
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    stage.onLifecycle(lifecycle('w-r1', 'heartbeat'), micros(0));
    expect(stage.sizes()).toEqual({ ready: 2, requested: 1 });
  });

  it('forgets a worker and its instances when it goes silent', () => {
    const { stage, agenda } = autoscaler({ intervalMs: 2_000 });
    stage.onLifecycle(lifecycle('w-r0', 'register'), micros(0));
    expect(stage.sizes()).toEqual({ ready: 1, requested: 1 });
    agenda.runUntil(20 * S);
    expect(stage.sizes()).toEqual({ ready: 1, requested: 1 });
    agenda.runUntil(22 * S);
    expect(stage.sizes()).toEqual({ ready: 0, requested: 0 });
  });
});
