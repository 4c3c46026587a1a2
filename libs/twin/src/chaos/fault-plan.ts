import { faultWindow, type Fault } from '@sluice/workload';
import { busRuleReach } from './bus-fault-table.js';

/** What the twin has that a fault can name. */
export interface TwinTopology {
  /** Its worker processes, by scenario name (`worker-0`, …). */
  readonly processes: readonly string[];
  /** Every instance id, sorted (as the live executor sorts them to pick `instanceCount` of them). */
  readonly instanceIds: readonly string[];
}

/** One fault of a scenario as the twin will run it, or why it will not. */
export interface PlannedFault {
  /** Its index in the scenario. */
  readonly index: number;
  readonly fault: Fault;
  /** The process, instances or subject it hits, in a few words. */
  readonly target: string;
  /** Virtual µs: the first request's arrival plus the fault's offsets. */
  readonly startUs: number;
  readonly endUs: number | undefined;
  /** Why the twin leaves it out; undefined when it is modelled. */
  readonly skipped: string | undefined;
  /** For worker-faults: the instances it sets knobs on. */
  readonly instanceIds: readonly string[];
  /** What the twin makes of it beyond the obvious (a bus rule's hops), for the report. */
  readonly scope: string | undefined;
}

/**
 * Reads a scenario's faults against the twin's topology: when each fires and is undone (offsets
 * count from the first request, as live), what each hits, and which the twin cannot model.
 */
export function planFaults(faults: readonly Fault[], t0Us: number, twin: TwinTopology): PlannedFault[] {
  return faults.map((fault, index) => {
    const { startMs, endMs } = faultWindow(fault);
    const base = { index, fault, startUs: t0Us + startMs * 1000, endUs: endMs === undefined ? undefined : t0Us + endMs * 1000, instanceIds: [] as string[], scope: undefined };
    switch (fault.action) {
      case 'kill':
      case 'terminate': {
        const process = workerProcess(fault.target);
        if (process === undefined) return { ...base, target: fault.target, skipped: `${fault.action} of ${fault.target}: the twin's ${fault.target} cannot die (only worker processes can)` };
        if (!twin.processes.includes(process)) return { ...base, target: process, skipped: `${fault.action} of ${process}: the twin has no ${process} (worker.processes is ${twin.processes.length})` };
        return { ...base, target: process, skipped: undefined };
      }
      case 'pause':
        if (fault.target === 'admission' || fault.target === 'flow-controller' || fault.target === 'router') return { ...base, target: fault.target, skipped: undefined };
        return { ...base, target: fault.target, skipped: `pause of ${fault.target}: only admission, flow-controller and router can be paused in the twin` };
      case 'disconnect':
        return { ...base, target: fault.target, skipped: `disconnect of ${fault.target}: the twin has no network to partition` };
      case 'restart-nats':
        return { ...base, target: 'nats', skipped: 'restart-nats: the twin has no NATS server (no reconnects, no lost frames)' };
      case 'stop-nats-node':
        return { ...base, target: fault.node === 'busiest' ? 'the busiest NATS node' : `nats-${fault.node}`, skipped: 'stop-nats-node: the twin has no NATS cluster (no connections to move to another node)' };
      case 'worker-faults':
        return planWorkerFaults(fault, base, twin);
      case 'bus-faults': {
        const reach = busRuleReach(fault.subject, twin.instanceIds);
        if (reach.hops.length === 0) {
          return { ...base, target: fault.subject, skipped: `bus-faults on ${fault.subject}: no hop the twin carries matches it (request submits and load snapshots only)` };
        }
        const uncarried = reach.notCarried.length > 0 ? `; not carried by the twin, so unfaulted: ${reach.notCarried.join(', ')}` : '';
        const duplicates = fault.duplicatePercent > 0 ? '; duplicates change nothing (each attempt is served once)' : '';
        return { ...base, target: fault.subject, skipped: undefined, scope: `on ${reach.hops.join(', ')}${uncarried}${duplicates}` };
      }
    }
  });
}

type WorkerFaultsFault = Extract<Fault, { action: 'worker-faults' }>;

function planWorkerFaults(fault: WorkerFaultsFault, base: Omit<PlannedFault, 'target' | 'skipped'>, twin: TwinTopology): PlannedFault {
  // `instanceCount` is newer than some scenario schemas: read it if the fault has it.
  const count = (fault as { readonly instanceCount?: number }).instanceCount;
  if (fault.instance !== undefined) {
    if (!twin.instanceIds.includes(fault.instance)) {
      const ids = twin.instanceIds;
      return { ...base, target: fault.instance, skipped: `worker-faults on instance ${fault.instance}: the twin has no such instance (its ids are ${ids[0]} … ${ids.at(-1)}; instanceCount picks by count)` };
    }
    return { ...base, target: fault.instance, skipped: undefined, instanceIds: [fault.instance] };
  }
  const instanceIds = count === undefined ? twin.instanceIds : twin.instanceIds.slice(0, count);
  const target = count === undefined ? 'every instance' : `${instanceIds.length} instance${instanceIds.length === 1 ? '' : 's'} (${instanceIds.join(', ')})`;
  return { ...base, target, skipped: undefined, instanceIds };
}

/** `worker` is worker-0. */
function workerProcess(target: string): string | undefined {
  if (target === 'worker') return 'worker-0';
  return target.startsWith('worker-') ? target : undefined;
}
