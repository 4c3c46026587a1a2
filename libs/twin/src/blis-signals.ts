import type { Micros } from '@sluice/contracts';
import type { RoutingStage } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { WorkerFleet } from './worker-fleet.js';

/**
 * BLIS parity mode's routing signals (docs/behaviour.md §1): BLIS's router reads each instance's
 * state at decision time, where sluice's reads published snapshots. Before each decision the twin
 * hands the router every live instance's state as of now, so the view it decides on is the live
 * one: QueueDepth without requests still in their queueing delay (the engine's BLIS snapshot),
 * BatchSize = running, KVUtilization = used/total blocks. With snapshots visible at once (the
 * twin sets the refresh interval to 0 in this mode) nothing staler can be read. `router` is the
 * replica about to decide.
 */
export function readLiveSignals(workers: WorkerFleet, router: RoutingStage<Flight>, atUs: Micros): void {
  for (const instance of workers.instanceList) {
    if (instance.process.state === 'gone') continue;
    const { instanceId, workerId, rank } = instance.core.identity;
    // Only instances in the cluster report: not one an autoscaler parked, nor one still starting.
    const slot = instance.process.stage.slots.stateOf(instanceId);
    if (slot === 'parked' || slot === 'starting') continue;
    router.onSnapshot({ ...instance.core.engineSnapshot(atUs), instanceId, workerId, rank, atUs });
  }
}
