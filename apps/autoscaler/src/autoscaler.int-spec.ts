import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf, LifecycleEventSchema, SetWorkerInstancesSchema, subjectPatterns, subjects, type BusIdentity, type LifecycleEvent, type SetWorkerInstances } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, postCompletion } from '@sluice/testing';

/**
 * The autoscaler on a real cluster (real nats-server, every service a child process, real time):
 * a burst queues in flow control, the autoscaler starts parked instances, each registers only
 * after its modelled model load, every request completes, and once the queue is empty the
 * instances it added drain and leave. The bus requires credentials, as `sluice up`'s does: the
 * autoscaler does all this with its own identity's permissions.
 */
const MODEL_LOAD_MS = 2_000;
const INTERVAL_MS = 1_000;
const BURST = 40;
const MAX_TOKENS = 24;

let cluster: LocalCluster;
const watchers: NatsConnection[] = [];
/** What the test saw on the bus, with the test's clock at receipt (one clock for both sides of a delay). */
const sizes: { at: number; size: SetWorkerInstances }[] = [];
const lifecycle: { at: number; event: LifecycleEvent }[] = [];

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    // Six processes start at once on a machine two cores serve: patient.
    readyTimeoutMs: 60_000,
    configArgs: [
      ...FREE_PORT_ARGS,
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
  // The verb as a worker hears it (without answering), the lifecycle events as the autoscaler hears them.
  const verbs = await watch('worker');
  verbs.subscribe(subjects.control('worker', 'set-instances'), { callback: (_, msg) => void sizes.push({ at: Date.now(), size: SetWorkerInstancesSchema.parse(msg.json()) }) });
  const events = await watch('autoscaler');
  events.subscribe(subjectPatterns.allWorkerLifecycle, {
    callback: (_, msg) => {
      const event = LifecycleEventSchema.parse(msg.json());
      if (event.type !== 'heartbeat') lifecycle.push({ at: Date.now(), event });
    },
  });
  for (const nc of watchers) await nc.flush();
}, 90_000);

afterAll(async () => {
  for (const nc of watchers) await nc.close();
  await cluster?.stop();
});

/** A raw client with a service's credentials: it can watch only what that identity may. */
async function watch(identity: BusIdentity): Promise<NatsConnection> {
  const { user, password } = cluster.natsIdentity(identity)!;
  const nc = await connect({ servers: cluster.natsUrl, user, pass: password, inboxPrefix: inboxPrefixOf(identity), name: `autoscaler-spec-${identity}` });
  watchers.push(nc);
  return nc;
}

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
    expect(await metricSum(url('autoscaler'), 'sluice_autoscaler_decisions_total', 'direction="up"')).toBeGreaterThanOrEqual(1);
    // Each instance it started registered no sooner than its model load after the decision.
    // Both times are the test's receipts; the worker may hear the verb a little before the test does.
    const started = lifecycle.filter((l) => l.event.type === 'register' && l.event.instanceId !== first && l.at >= up!.at);
    expect(started.length).toBeGreaterThanOrEqual(1);
    for (const { at, event } of started) expect(at - up!.at, event.instanceId).toBeGreaterThanOrEqual(MODEL_LOAD_MS - 20);

    // The scale-down: the queue is empty, the stabilization window passes, and the added instances drain and leave.
    await eventually(async () => (await instancesIn('ready')) === 1 && (await instancesIn('draining')) === 0, 15_000, 'the pool back to one ready instance');
    expect(await instancesIn('parked')).toBe(3);
    expect(sizes.at(-1)?.size.instances).toBe(1);
    expect(await metricSum(url('autoscaler'), 'sluice_autoscaler_decisions_total', 'direction="down"')).toBeGreaterThanOrEqual(1);
    for (const { event } of started) {
      const after = lifecycle.filter((l) => l.event.instanceId === event.instanceId && l.at > started[0]!.at).map((l) => l.event.type);
      expect(after, event.instanceId).toEqual(expect.arrayContaining(['drain', 'deregister']));
    }
    // The instance that ran from the start was never asked to leave.
    expect(lifecycle.some((l) => l.event.instanceId === first && l.event.type === 'drain')).toBe(false);
  }, 45_000);
});
