import type { BusFaultRule } from '@sluice/contracts';
import type { PausableStage, TwinFaultPort } from '@sluice/workload';
import type { TwinNetwork } from '../network.js';
import type { TwinWorld } from '../twin-world.js';
import type { WorkerProcess } from '../worker-process.js';
import { busRuleReach } from './bus-fault-table.js';

/**
 * The twin's side of the chaos faults: the primitive operations each fault's twin action (in its
 * folder under libs/workload's chaos faults) runs on, and the agenda their times go on. Built
 * from the two parts of a run a fault touches, so this file is the one place that knows where the
 * gates, the bus fault table and the worker processes live.
 */

/** The parts of a run a fault touches: the network (its agenda, stage gates and bus fault table) and the worker fleet. */
export type TwinFaultParts = Pick<TwinWorld, 'network' | 'workers'>;

/** Where the faults' times go: the twin's agenda, read and written by virtual µs. */
export interface FaultAgenda {
  readonly nowUs: number;
  at(atUs: number, run: () => void): void;
}

/** The port the faults' twin actions use, and the agenda the chaos timeline schedules them on. */
export interface TwinChaosHost {
  readonly faults: TwinFaultPort;
  readonly agenda: FaultAgenda;
}

/** A scenario names the flow controller `flow-controller`; its gate is `flow`. */
const GATE_OF = { admission: 'admission', 'flow-controller': 'flow', router: 'router' } as const satisfies Record<PausableStage, keyof TwinNetwork['gates']>;

export function twinChaosHost({ network, workers }: TwinFaultParts): TwinChaosHost {
  const process = (name: string): WorkerProcess => {
    const found = workers.processes.find((p) => p.name === name);
    if (!found) throw new Error(`no worker process ${name} in the twin`);
    return found;
  };
  const faults: TwinFaultPort = {
    get workerProcesses() {
      return workers.processes.map((p) => p.name);
    },
    get instanceIds() {
      return [...workers.instances.keys()].sort();
    },
    busRuleReach: (pattern) => busRuleReach(pattern, [...workers.instances.keys()].sort()),
    killWorkerProcess: (name) => process(name).kill(),
    terminateWorkerProcess: (name) => process(name).terminate(),
    pauseStage: (stage) => network.gates[GATE_OF[stage]].pause(),
    resumeStage: (stage) => network.gates[GATE_OF[stage]].resume(),
    setInstanceFaults: (instanceId, knobs) => {
      const instance = workers.instances.get(instanceId);
      if (!instance) throw new Error(`no instance ${instanceId} in the twin`);
      instance.core.setFaults(knobs);
    },
    setBusRule: (rule: BusFaultRule) => network.busFaults.set(rule),
    clearBusRule: (subject) => network.busFaults.clear(subject),
  };
  const agenda: FaultAgenda = {
    get nowUs() {
      return network.queue.nowUs;
    },
    // A fault at t acts on everything else due at t (the agenda runs `fault` events first).
    at: (atUs, run) => network.queue.at(atUs, 'fault', run),
  };
  return { faults, agenda };
}
