import type { RequestDone } from '@sluice/contracts';
import type { RoutingStage } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { World } from './world.js';

/**
 * BLIS parity mode's routing signals (docs/behaviour.md §1): BLIS's router reads each instance's
 * state at decision time, where sluice's reads published snapshots. Before each decision the twin
 * hands the router every live instance's state as of now, so the view it decides on is the live
 * one: QueueDepth without requests still in their queueing delay (the engine's BLIS snapshot),
 * BatchSize = running, KVUtilization = used/total blocks. With snapshots visible at once (the
 * twin sets the refresh interval to 0 in this mode) nothing staler can be read. `router` is the
 * replica about to decide.
 */
export function readLiveSignals(world: World, router: RoutingStage<Flight>): void {
  const atUs = world.nowUs;
  for (const instance of world.instanceList) {
    if (instance.process.state === 'gone') continue;
    const { instanceId, workerId, rank } = instance.core.identity;
    router.onSnapshot({ ...instance.core.engineSnapshot(atUs), instanceId, workerId, rank, atUs });
  }
}

/**
 * BLIS's InFlight drops at the start of the step that completes a request (its state changes
 * apply there), not when the done event reaches the router after the last token: the router hears
 * it at once (every router replica, as every one hears done events). The later done event is
 * idempotent.
 */
export function completingNow(world: World, instanceId: string, requestIds: readonly string[]): void {
  const atUs = world.nowUs;
  for (const requestId of requestIds) {
    const done: RequestDone = { requestId, instanceId, reason: 'ok', atUs };
    world.gates.router.pass(() => {
      for (const router of world.router.replicas) router.onDone(done);
    });
  }
}
