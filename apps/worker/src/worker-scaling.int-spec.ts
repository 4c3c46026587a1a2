import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf, subjects, type BusIdentity } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum } from '@sluice/testing';

/**
 * The worker's side of autoscaling, on a real worker process and a real nats-server with
 * credentials: the test plays the autoscaler (`set-instances`, as the control identity may) and
 * the router (handoffs to each instance's submit subject). Only a ready instance has a submit
 * subject and a healthy HTTP face; a started one gets both only after its model load.
 */
const BASE_PORT = 18840;
const MODEL_LOAD_MS = 600;
let cluster: LocalCluster;
const clients: NatsConnection[] = [];
let control: NatsConnection;
let router: NatsConnection;
let workerId: string;

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    services: ['worker'],
    configArgs: [
      ...FREE_PORT_ARGS,
      '--worker.instances=4',
      '--worker.initialInstances=1',
      `--worker.modelLoadMs=${MODEL_LOAD_MS}`,
      '--worker.timeScale=1',
      // Parked instances are for an autoscaler to start: the config refuses them without one (here the test is it).
      '--autoscaler.enabled=true',
      '--worker.http.enabled=true',
      `--worker.http.basePort=${BASE_PORT}`,
    ],
    readyTimeoutMs: 60_000,
  });
  control = await as('control');
  router = await as('router');
  const page = await (await fetch(`${workerUrl()}/metrics`)).text();
  workerId = /instance_id="([^"]+)"/.exec(page)![1]!;
}, 90_000);

afterAll(async () => {
  for (const nc of clients) await nc.close();
  await cluster?.stop();
});

const workerUrl = () => cluster.services.find((s) => s.name === 'worker')!.url;
const instanceUrl = (rank: number) => `http://127.0.0.1:${BASE_PORT + rank}`;
const instancesIn = (state: string) => metricSum(workerUrl(), 'sluice_worker_instances', `state="${state}"`);

async function as(identity: BusIdentity): Promise<NatsConnection> {
  const { user, password } = cluster.natsIdentity(identity)!;
  const nc = await connect({ servers: cluster.natsUrl, user, pass: password, inboxPrefix: inboxPrefixOf(identity) });
  clients.push(nc);
  return nc;
}

/** The answer to set-instances, or `silent` when no worker answers within 500 ms. */
async function setInstances(id: string, instances: number): Promise<unknown> {
  try {
    return (await control.request(subjects.control('worker', 'set-instances'), JSON.stringify({ workerId: id, instances }), { timeout: 500 })).json();
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return 'silent';
    throw error;
  }
}

/** Whether a handoff to the instance's submit subject finds a responder (a malformed one is nacked: a reply all the same). */
async function hasSubmitResponder(rank: number): Promise<boolean> {
  try {
    await router.request(subjects.workerSubmit(`${workerId}-r${rank}`), '{}', { timeout: 1_000 });
    return true;
  } catch (error) {
    if ((error as Error).name === 'NoRespondersError' || /no responders/i.test((error as Error).message)) return false;
    throw error;
  }
}

async function health(rank: number): Promise<number> {
  return (await fetch(`${instanceUrl(rank)}/health`)).status;
}

describe('a worker under an autoscaler', () => {
  it('runs its initial instances; a parked one has no submit subject and answers 503', async () => {
    expect(await instancesIn('ready')).toBe(1);
    expect(await instancesIn('parked')).toBe(3);
    expect(await hasSubmitResponder(0)).toBe(true);
    expect(await hasSubmitResponder(1)).toBe(false);
    expect(await health(0)).toBe(200);
    const parked = await fetch(`${instanceUrl(1)}/health`);
    expect(parked.status).toBe(503);
    expect(await parked.text()).toContain('scaled down');
    const refused = await fetch(`${instanceUrl(1)}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt: 'hi', max_tokens: 2 }) });
    expect(refused.status).toBe(503);
  });

  it('answers set-instances only when named, and refuses a size it cannot host, naming the key', async () => {
    expect(await setInstances('worker-someone-else', 2)).toBe('silent');
    const refused = (await setInstances(workerId, 5)) as { ok: boolean; message?: string };
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/5 is more than the 4 instances .* hosts \(worker\.instances\)/);
    expect(await instancesIn('ready')).toBe(1);
  });

  it('starts an instance that takes work only after its model load, and parks it again by draining', async () => {
    const asked = Date.now();
    expect(await setInstances(workerId, 2)).toEqual({ ok: true, result: { workerId, active: 2, starting: 1, ready: 1, draining: 0 } });
    expect(await instancesIn('starting')).toBe(1);
    const loading = await fetch(`${instanceUrl(1)}/health`);
    expect(loading.status).toBe(503);
    expect(await loading.text()).toContain('loading its model');
    expect(await hasSubmitResponder(1)).toBe(false);
    await eventually(async () => (await health(1)) === 200, 10_000, 'instance r1 healthy');
    expect(Date.now() - asked).toBeGreaterThanOrEqual(MODEL_LOAD_MS);
    expect(await hasSubmitResponder(1)).toBe(true);
    expect(await instancesIn('ready')).toBe(2);

    // Nothing running on it: it drains at once and is parked.
    expect(await setInstances(workerId, 1)).toMatchObject({ ok: true, result: { active: 1, ready: 1 } });
    expect(await hasSubmitResponder(1)).toBe(false);
    expect(await health(1)).toBe(503);
    expect(await instancesIn('parked')).toBe(3);
    expect(await hasSubmitResponder(0)).toBe(true);
  });
});
