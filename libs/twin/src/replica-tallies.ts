import type { Micros } from '@sluice/contracts';
import type { StageGroups } from './stage-groups.js';

/** One stage replica at the end of a run. */
export interface ReplicaTally {
  /** Handoffs its queue group gave it (first submissions and re-submissions). */
  readonly handoffs: number;
}

/** A flow-control or router replica also keeps books of what it sent on: they should be empty at the end. */
export interface BookkeepingReplicaTally extends ReplicaTally {
  /** Requests it still counted as dispatched and not done when the run ended. */
  readonly inFlightAtEnd: number;
}

/** Per stage, one entry per replica, in replica order. */
export interface TwinReplicaTallies {
  readonly admission: readonly ReplicaTally[];
  readonly flow: readonly BookkeepingReplicaTally[];
  readonly router: readonly BookkeepingReplicaTally[];
}

/**
 * Each replica's share of the handoffs and what its books still hold, read after the agenda has
 * drained (nothing here touches the run). A done event reaches every replica, so a count left
 * above 0 would mean a replica's books went wrong.
 */
export function replicaTallies(stages: StageGroups, now: Micros): TwinReplicaTallies {
  return {
    admission: stages.admission.taken.map((handoffs) => ({ handoffs })),
    flow: stages.flow.replicas.map((core, i) => ({ handoffs: stages.flow.taken[i]!, inFlightAtEnd: core.inFlight })),
    router: stages.router.replicas.map((core, i) => ({
      handoffs: stages.router.taken[i]!,
      inFlightAtEnd: core.instances(now).reduce((sum, instance) => sum + instance.inFlight, 0),
    })),
  };
}
