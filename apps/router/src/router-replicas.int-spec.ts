import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, reportedCompletion } from '@sluice/testing';

/**
 * Two routers behind one queue group: each keeps its own in-flight counts (docs/scaling.md), so
 * each must count exactly what it dispatched, give back every count when its requests are done,
 * and end every request.
 */
const REQUESTS = 60;

/** A service's instance id: the `instance_id` label every series of its /metrics carries. */
async function instanceIdOf(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const id = /instance_id="([^"]+)"/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no instance_id label on ${url}/metrics`);
  return id;
}

describe('two router replicas', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, '--router.replicas=2', '--router.policy=least-loaded', '--worker.instances=4', '--worker.timeScale=20'],
    });
  });
  afterAll(() => cluster?.stop());

  it('end every request, each counting exactly what it dispatched, and both back to zero in flight', async () => {
    const routers = cluster.services.filter((s) => s.name === 'router');
    expect(routers.map((r) => r.process)).toEqual(['router-0', 'router-1']);
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) => reportedCompletion(cluster.gatewayUrl, { prompt: `request ${i} to a replicated router`, max_tokens: 8 })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: REQUESTS }, () => 200));

    // Which router held each answer (its held frame): every request was routed by one of the two.
    const routedBy = new Map<string, number>();
    for (const a of answers) routedBy.set(a.sluice!.holders.router!, (routedBy.get(a.sluice!.holders.router!) ?? 0) + 1);
    expect([...routedBy.values()].reduce((x, y) => x + y, 0)).toBe(REQUESTS);
    expect(routedBy.size).toBe(2);

    for (const router of routers) {
      // Its own decisions are exactly the answers it held, and all of its in-flight counts came back.
      const instanceId = await instanceIdOf(router.url);
      expect(await metricSum(router.url, 'sluice_router_decisions_total')).toBe(routedBy.get(instanceId));
      await eventually(async () => (await metricSum(router.url, 'sluice_router_inflight')) === 0, 10_000, `${router.process} in flight back to 0`);
    }

    // The gateway's books balance: every request has one outcome, none is left in flight.
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(REQUESTS);
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_in_flight')).toBe(0);
  });
});
