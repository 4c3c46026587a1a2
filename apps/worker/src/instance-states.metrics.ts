import type { SlotCounts, SlotState } from '@sluice/stages';
import { Gauge, type Registry } from '@sluice/telemetry';

const STATES: readonly SlotState[] = ['parked', 'starting', 'ready', 'draining'];

/**
 * `sluice_worker_instances{state}`: this process's instances by where they are in their life
 * under an autoscaler (libs/stages instance-slots.ts). vLLM has no such gauge (a pod that loads is
 * not yet scraped, one that is gone is not scraped any more): it is what `kube_pod_status_ready`
 * and the ReplicaSet's counts tell on Kubernetes. Read at scrape time; every state has its series
 * from the start.
 */
export function createInstanceStatesGauge(registry: Registry, hosted: number, counts: () => SlotCounts): void {
  const gauge: Gauge<'state'> = new Gauge({
    name: 'sluice_worker_instances',
    help: 'Instances of this worker process by state: parked (scaled down), starting (loading the model), ready (registered, taking work), draining (leaving).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { starting, ready, draining } = counts();
      const now: Record<SlotState, number> = { parked: hosted - starting - ready - draining, starting, ready, draining };
      for (const state of STATES) gauge.set({ state }, now[state]);
    },
  });
}
