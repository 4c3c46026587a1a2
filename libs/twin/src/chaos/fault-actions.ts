import { WorkerFaultsSchema, type WorkerFaults } from '@sluice/contracts';
import type { Fault } from '@sluice/workload';
import type { TwinWorld as World } from '../twin-world.js';
import type { PlannedFault } from './fault-plan.js';

type WorkerFaultsFault = Extract<Fault, { action: 'worker-faults' }>;

/** The stage processes a scenario can pause, by their names in it. */
const GATE_OF = { admission: 'admission', 'flow-controller': 'flow', router: 'router' } as const;

/** Does a modelled fault at its start time; returns what was done, for the report. */
export function startFault(world: World, planned: PlannedFault): string {
  const { fault } = planned;
  switch (fault.action) {
    case 'kill':
      return processNamed(world, planned.target).kill();
    case 'terminate':
      return processNamed(world, planned.target).terminate();
    case 'pause':
      world.network.gates[gateOf(fault.target)].pause();
      return `${fault.target} paused: what it is sent waits`;
    case 'worker-faults': {
      const knobs = knobsOf(fault);
      for (const id of planned.instanceIds) world.workers.instances.get(id)!.core.setFaults(knobs);
      return `knobs ${JSON.stringify(knobs)} on ${planned.target}`;
    }
    case 'bus-faults': {
      const { subject, delayMs, jitterMs, dropPercent, duplicatePercent } = fault;
      world.network.busFaults.set({ subject, delayMs, jitterMs, dropPercent, duplicatePercent });
      const knobs = [
        delayMs > 0 ? `delay ${delayMs} ms` : undefined,
        jitterMs > 0 ? `jitter ≤ ${jitterMs} ms` : undefined,
        dropPercent > 0 ? `drop ${dropPercent}%` : undefined,
        duplicatePercent > 0 ? `duplicate ${duplicatePercent}%` : undefined,
      ].filter((k) => k !== undefined);
      return `rule on ${subject} (${knobs.join(', ') || 'no knob on'}) ${planned.scope ?? ''}`.trimEnd();
    }
    case 'disconnect':
    case 'restart-nats':
    case 'stop-nats-node':
      throw new Error(`${fault.action} is not modelled in the twin: the plan skips it`);
  }
}

/** Undoes a modelled fault at its end time (only faults with `forMs` have one); returns what was done. */
export function undoFault(world: World, planned: PlannedFault): string {
  const { fault } = planned;
  switch (fault.action) {
    case 'pause': {
      const waited = world.network.gates[gateOf(fault.target)].resume();
      return `${fault.target} continued: ${waited} messages and wake-ups handled`;
    }
    case 'worker-faults': {
      // As live: the knobs the fault set go back to their defaults, the others stay as they are.
      const defaults = defaultsOf(knobsOf(fault));
      for (const id of planned.instanceIds) world.workers.instances.get(id)!.core.setFaults(defaults);
      return `knobs ${JSON.stringify(defaults)} on ${planned.target}`;
    }
    case 'bus-faults':
      world.network.busFaults.clear(fault.subject);
      return `rule on ${fault.subject} cleared`;
    case 'kill':
    case 'terminate':
    case 'disconnect':
    case 'restart-nats':
    case 'stop-nats-node':
      throw new Error(`${fault.action} has no end`);
  }
}

function processNamed(world: World, name: string) {
  const process = world.workers.processes.find((p) => p.name === name);
  if (!process) throw new Error(`no worker process ${name} in the twin`);
  return process;
}

function gateOf(target: string): (typeof GATE_OF)[keyof typeof GATE_OF] {
  if (!(target in GATE_OF)) throw new Error(`${target} cannot be paused in the twin`);
  return GATE_OF[target as keyof typeof GATE_OF];
}

function knobsOf(fault: WorkerFaultsFault): Partial<WorkerFaults> {
  return {
    ...(fault.slowdown === undefined ? {} : { slowdown: fault.slowdown }),
    ...(fault.failureRate === undefined ? {} : { failureRate: fault.failureRate }),
    ...(fault.hang === undefined ? {} : { hang: fault.hang }),
  };
}

function defaultsOf(knobs: Partial<WorkerFaults>): Partial<WorkerFaults> {
  const defaults = WorkerFaultsSchema.parse({});
  return Object.fromEntries(Object.keys(knobs).map((key) => [key, defaults[key as keyof WorkerFaults]]));
}
