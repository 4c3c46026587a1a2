import { ClusterStartError } from './cluster-errors.js';
import { delay } from './net.js';
import { getWithinASecond } from './readiness.js';

/**
 * The Endpoint Picker's count of the pool's ready endpoints, which the router exports (the
 * instances it has heard from and that are not draining).
 */
const READY_ENDPOINTS = 'llm_d_epp_ready_endpoints';

/** The sum of the router's ready-endpoints samples (one per pool), or undefined when it does not answer. */
export async function readyEndpoints(routerUrl: string, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const res = await getWithinASecond(`${routerUrl}/metrics`, signal);
    if (res.status !== 200) {
      await res.body?.cancel();
      return undefined;
    }
    return (await res.text())
      .split('\n')
      .filter((line) => line.startsWith(`${READY_ENDPOINTS}{`) || line.startsWith(`${READY_ENDPOINTS} `))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  } catch {
    return undefined;
  }
}

export interface RouterToHear {
  readonly name: string;
  readonly url: string;
}

/**
 * Waits until every router counts at least `instances` ready endpoints. A router is ready (its
 * /readyz) once it is subscribed and has asked the instances already up to announce themselves;
 * their answers come a moment later. A request in that moment finds no instance, and the router
 * hands it back to its gateway for another attempt: not an error, but the cluster's first request
 * would then take two attempts and its trace two routing spans. So a cluster the launcher starts
 * is ready when its routers can place a request on any of its starting instances.
 */
export async function waitForRoutersToHearWorkers(routers: readonly RouterToHear[], instances: number, deadline: number, signal?: AbortSignal): Promise<void> {
  if (instances === 0) return;
  await Promise.all(
    routers.map(async ({ name, url }) => {
      for (;;) {
        if (signal?.aborted) throw signal.reason;
        const heard = await readyEndpoints(url, signal);
        if (heard !== undefined && heard >= instances) return;
        if (Date.now() > deadline) {
          throw new ClusterStartError(`${name} had heard from ${heard ?? 'no'} of the ${instances} worker instances when the cluster's ready timeout ran out; see the worker and ${name} logs`, 'router', [], { process: name });
        }
        await delay(50, signal);
      }
    }),
  );
}
