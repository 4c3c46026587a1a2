import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileMessage, type HostileMessage } from './bus-fuzz/hostile-messages.js';
import { edgeAccepts, receiversOf, subscriptionsOf, type ClusterIds, type Subscription } from './bus-fuzz/subscriptions.js';
import { postCompletion, TEST_MODEL } from './completions.js';
import { eventually, metricSum } from './probes.js';

/**
 * Fuzzing the bus (docs/security.md "Hostile bus messages"): a real cluster on an open bus
 * (`--nats.auth=false`, so a plain NATS client plays the hostile peer), and fast-check publishing
 * over 10,000 generated messages onto every subject a service listens on: valid ones with forged
 * ids, near-valid, garbage, large, and subjects that only look like sluice's, while a client keeps
 * sending real requests. Afterwards: no process crashed or restarted, every refusal is counted by
 * the process and subscription that refused it exactly as the schemas say it must be, no handler
 * threw, and the books balance: every real request ended once, new ones complete, the routers'
 * in-flight counts are back to 0 and nothing is left queued.
 */

const RUNS = 20;
const PER_RUN = 520;
/**
 * Every run's seed is chosen here and named in any failure, the property's or a check's after it:
 * `BUS_FUZZ_SEED=<seed>` runs exactly that again.
 */
const SEED = process.env['BUS_FUZZ_SEED'] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env['BUS_FUZZ_SEED']);

let cluster: LocalCluster;
let nc: NatsConnection;
let ids: ClusterIds;
let subscriptions: ReadonlyMap<string, readonly Subscription[]>;

const url = (process: string) => cluster.processes().find((p) => p.name === process)!.url;

/** A process's own id: the `instance_id` label every series it exports carries. */
async function instanceIdOf(process: string): Promise<string> {
  const text = await (await fetch(`${url(process)}/metrics`)).text();
  const id = /instance_id="([^"]+)"/.exec(text)?.[1];
  if (!id) throw new Error(`no instance_id in the metrics of ${process}`);
  return id;
}

async function allReady(): Promise<boolean> {
  const answers = await Promise.all(cluster.processes().map((p) => fetch(`${p.url}/readyz`).then((r) => r.status, () => 0)));
  return answers.every((status) => status === 200);
}

function publish(message: HostileMessage): void {
  if (!message.headers) return nc.publish(message.subject, message.payload);
  const h = natsHeaders();
  for (const [name, value] of message.headers) h.append(name, value);
  nc.publish(message.subject, message.payload, { headers: h });
}

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: ['--nats.auth=false', '--worker.instances=2', '--worker.timeScale=50', ...FREE_PORT_ARGS],
  });
  const workerId = await instanceIdOf('worker-0');
  ids = { gatewayId: await instanceIdOf('gateway'), instanceIds: [`${workerId}-r0`, `${workerId}-r1`] };
  subscriptions = subscriptionsOf(ids);
  nc = await connect({ servers: cluster.natsUrl, name: 'bus-fuzz' });
});

afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

/** Real requests one after another until stopped: each must end exactly once, whatever its outcome. */
function realTraffic(): { stop(): Promise<number[]> } {
  let stopped = false;
  const statuses: number[] = [];
  const running = (async () => {
    while (!stopped) {
      const status = await postCompletion(cluster.gatewayUrl, { model: TEST_MODEL, prompt: 'a real request during the fuzz', max_tokens: 2 }).then(
        async (res) => (await res.text(), res.status),
        () => 0, // no answer at all: counted, and the books checked below would not balance
      );
      statuses.push(status);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
      return statuses;
    },
  };
}

type Sent = Record<HostileMessage['kind'] | 'skipped', number>;

/**
 * fast-check's runs: each publishes PER_RUN generated messages and checks that every process is
 * still ready and was never restarted. Returns what was sent and the refusals each process must
 * count, by `process|pattern`: the schemas' verdicts on what it received.
 */
async function fuzzTheBus(): Promise<{ sent: Sent; expected: Map<string, number> }> {
  const expected = new Map<string, number>();
  const sent: Sent = { valid: 0, 'near-valid': 0, garbage: 0, large: 0, 'stray-subject': 0, skipped: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(hostileMessage(ids, Date.now()), { minLength: PER_RUN, maxLength: PER_RUN }), async (batch) => {
      for (const message of batch) {
        const receivers = receiversOf(subscriptions, message.subject);
        // A control verb that changes state is the control identity's to send (bus permissions), not a hostile peer's.
        if (receivers.some(({ subscription }) => subscription.changesState && edgeAccepts(subscription.schema, message.payload))) {
          sent.skipped += 1;
          continue;
        }
        publish(message);
        sent[message.kind] += 1;
        for (const { process, subscription } of receivers) {
          if (edgeAccepts(subscription.schema, message.payload)) continue;
          const key = `${process}|${subscription.pattern}`;
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
      }
      await nc.flush();
      // No process crashed, restarted or went unready.
      expect(cluster.processes().map((p) => [p.name, p.state, p.restarts])).toEqual(cluster.processes().map((p) => [p.name, 'ready', 0]));
      expect(await allReady()).toBe(true);
    }),
    { numRuns: RUNS, endOnFailure: true, seed: SEED },
  );
  return { sent, expected };
}

/** Nothing in flight at the router and nothing queued at the flow controller, within 15 s each. */
async function drained(): Promise<void> {
  await eventually(async () => (await metricSum(url('router'), 'sluice_router_inflight')) === 0, 15_000, `seed ${SEED}: router in-flight back to 0`).catch(async (e: unknown) => {
    const lines = (await (await fetch(`${url('router')}/metrics`)).text()).split('\n').filter((l) => l.startsWith('sluice_router_inflight') || l.startsWith('sluice_router_decisions_total'));
    throw new Error(`${(e as Error).message}:\n${lines.join('\n')}`);
  });
  await eventually(async () => (await metricSum(url('flow-controller'), 'inference_extension_flow_control_queue_size')) === 0, 15_000, `seed ${SEED}: flow control queues empty`);
}

describe('hostile messages on the bus', () => {
  it(`${RUNS * PER_RUN} fuzzed messages on every subscribed subject: no crash, every refusal counted, the books balance`, { timeout: 120_000 }, async () => {
    const started = performance.now();
    const traffic = realTraffic();
    const { sent, expected } = await fuzzTheBus().catch(async (error: unknown) => {
      await traffic.stop();
      throw error;
    });
    const realStatuses = await traffic.stop();
    const published = Object.entries(sent).reduce((n, [kind, count]) => (kind === 'skipped' ? n : n + count), 0);
    expect(published).toBeGreaterThanOrEqual(10_000);
    const fuzzMs = performance.now() - started;

    // Every refusal counted where it happened, by subscription and nowhere else; no handler threw.
    for (const [process, subs] of subscriptions) {
      for (const { pattern } of subs) {
        const want = expected.get(`${process}|${pattern}`) ?? 0;
        await eventually(async () => (await metricSum(url(process), 'sluice_bus_rejected_messages_total', `subject="${pattern}"`)) === want, 15_000, `seed ${SEED}: ${process} counting ${want} refusals on ${pattern}`);
      }
      const counted = await metricSum(url(process), 'sluice_bus_rejected_messages_total');
      const wanted = subs.reduce((n, { pattern }) => n + (expected.get(`${process}|${pattern}`) ?? 0), 0);
      expect(counted, `seed ${SEED}, ${process}: refusals on subjects it was not expected to listen on`).toBe(wanted);
      expect(await metricSum(url(process), 'sluice_bus_handler_errors_total'), `seed ${SEED}, ${process}: handlers that threw`).toBe(0);
    }

    // The valid forged requests (hundreds, on every stage's submit subject) are real work: it
    // drains, nothing is left in flight or queued, and then new requests complete.
    await drained();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => postCompletion(cluster.gatewayUrl, { model: TEST_MODEL, prompt: 'after the fuzz', max_tokens: 3 }).then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    const after = answers.map((a) => a.status);
    expect(after, `seed ${SEED}: ${JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.body.slice(0, 300)))}`).toEqual(after.map(() => 200));
    expect(realStatuses.filter((s) => s === 0)).toEqual([]);
    await eventually(
      async () => (await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total')) === (await metricSum(cluster.gatewayUrl, 'sluice_requests_total')),
      15_000,
      'gateway: received = Σ sluice_requests_total',
    );
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total')).toBe(realStatuses.length + after.length);
    await drained();
    expect(cluster.processes().every((p) => p.restarts === 0)).toBe(true);

    const refusals = [...expected.values()].reduce((a, b) => a + b, 0);
    const ok = realStatuses.filter((s) => s === 200).length;
    console.log(
      `bus fuzz: ${published} messages in ${(fuzzMs / 1000).toFixed(1)} s ${JSON.stringify(sent)}; ${refusals} refusals, each counted by the process that received it; ` +
        `real requests during the fuzz: ${realStatuses.length} (${ok} completed); after: ${after.length}/${after.length} completed; 0 restarts, 0 handler errors`,
    );
  });
});
