import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '@sluice/bus';
import { LifecycleEventSchema, SetWorkerInstancesSchema, subjectPatterns, subjects, type LifecycleEvent, type SetWorkerInstances } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, postCompletion } from '@sluice/testing';

/**
 * The autoscaler on a real cluster (real nats-server, every service a child process, real time):
 * a burst queues in flow control, the autoscaler starts parked instances, each registers only
 * after its modelled model load, every request completes, and once the queue is empty the
 * instances it added drain and leave.
 */
const MODEL_LOAD_MS = 2_000;
const INTERVAL_MS = 1_000;
const BURST = 40;
const MAX_TOKENS = 24;

let cluster: LocalCluster;
let bus: Bus;
/** What the test saw on the bus, with the test's clock at receipt (one clock for both sides of a delay). */
const sizes: { at: number; size: SetWorkerInstances }[] = [];
const lifecycle: { at: number; event: LifecycleEvent }[] = [];

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [
      ...FREE_PORT_ARGS,
      // An open bus: the spec watches the set-instances verb and the lifecycle events, a part no bus identity plays.
      '--nats.auth=false',
      // One worker process of 4 instances, 1 running at start; two requests at a time per instance,
      // so a burst saturates it and flow control queues the rest (the utilization detector).
      '--worker.instances=4',
      '--worker.initialInstances=1',
      `--worker.modelLoadMs=${MODEL_LOAD_MS}`,
      '--worker.timeScale=1',
      '--worker.maxRunning=2',
      '--autoscaler.enabled=true',
      '--autoscaler.metric=queueDepth',
      '--autoscaler.target=2',
      `--autoscaler.intervalMs=${INTERVAL_MS}`,
      '--autoscaler.scaleDown.stabilizationWindowMs=2000',
    ],
  });
  bus = await Bus.connect({ url: cluster.natsUrl, name: 'autoscaler-spec', ackTimeoutMs: 1000 });
  bus.listen(subjects.control('worker', 'set-instances'), SetWorkerInstancesSchema, ({ data }) => void sizes.push({ at: Date.now(), size: data }));
  bus.listen(subjectPatterns.allWorkerLifecycle, LifecycleEventSchema, ({ data }) => {
    if (data.type !== 'heartbeat') lifecycle.push({ at: Date.now(), event: data });
  });
  await bus.flush();
}, 60_000);

afterAll(async () => {
  await bus?.drain();
  await cluster?.stop();
});

const url = (service: string) => cluster.services.find((s) => s.name === service)!.url;
const instancesIn = async (state: string) => metricSum(url('worker'), 'sluice_worker_instances', `state="${state}"`);

describe('the autoscaler, live', () => {
  it('starts parked instances under a burst, each routable only after its model load, loses no request, and drains them once the queue is empty', async () => {
    expect(cluster.services.map((s) => s.name)).toContain('autoscaler');
    expect(await instancesIn('ready')).toBe(1);
    expect(await instancesIn('parked')).toBe(3);
    const first = lifecycle.find((l) => l.event.type === 'register')?.event.instanceId;

    const answers = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const res = await postCompletion(cluster.gatewayUrl, { prompt: [9000 + i, 1, 2, 3], max_tokens: MAX_TOKENS });
        return { status: res.status, body: (await res.json()) as { usage?: { completion_tokens: number } } };
      }),
    );
    // Every request ends once, and completed: none lost while instances came and went.
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.every((a) => a.body.usage?.completion_tokens === MAX_TOKENS)).toBe(true);

    // The scale-up: one decision asked the worker for more instances than it ran.
    const up = sizes.find((s) => s.size.instances > 1);
    expect(up, JSON.stringify(sizes)).toBeDefined();
    expect(await metricSum(url('autoscaler'), 'sluice_autoscaler_scale_events_total', 'direction="up"')).toBeGreaterThanOrEqual(1);
    // Each instance it started registered no sooner than its model load after the decision.
    // Both times are the test's receipts; the worker may hear the verb a little before the test does.
    const started = lifecycle.filter((l) => l.event.type === 'register' && l.event.instanceId !== first && l.at >= up!.at);
    expect(started.length).toBeGreaterThanOrEqual(1);
    for (const { at, event } of started) expect(at - up!.at, event.instanceId).toBeGreaterThanOrEqual(MODEL_LOAD_MS - 20);

    // The scale-down: the queue is empty, the stabilization window passes, and the added instances drain and leave.
    await eventually(async () => (await instancesIn('ready')) === 1 && (await instancesIn('draining')) === 0, 15_000, 'the pool back to one ready instance');
    expect(await instancesIn('parked')).toBe(3);
    expect(sizes.at(-1)?.size.instances).toBe(1);
    expect(await metricSum(url('autoscaler'), 'sluice_autoscaler_scale_events_total', 'direction="down"')).toBeGreaterThanOrEqual(1);
    for (const { event } of started) {
      const after = lifecycle.filter((l) => l.event.instanceId === event.instanceId && l.at > started[0]!.at).map((l) => l.event.type);
      expect(after, event.instanceId).toEqual(expect.arrayContaining(['drain', 'deregister']));
    }
    // The instance that ran from the start was never asked to leave.
    expect(lifecycle.some((l) => l.event.instanceId === first && l.event.type === 'drain')).toBe(false);
  }, 45_000);
});
