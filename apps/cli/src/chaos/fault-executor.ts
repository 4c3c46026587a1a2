import { WorkerFaultsSchema, type SetWorkerFaults } from '@sluice/contracts';
import type { Fault } from '@sluice/workload';
import { processName, type ChaosTarget } from './chaos-target.js';
import type { FaultControls } from './fault-controls.js';
import { chooseNatsNode } from './nats-nodes.js';

type WorkerFaultsFault = Extract<Fault, { action: 'worker-faults' }>;
type StopNatsNodeFault = Extract<Fault, { action: 'stop-nats-node' }>;

/** The knobs a worker-faults fault sets, as the worker's set-faults verb takes them. */
function workerKnobs(fault: WorkerFaultsFault): SetWorkerFaults['faults'] {
  return {
    ...(fault.slowdown === undefined ? {} : { slowdown: fault.slowdown }),
    ...(fault.failureRate === undefined ? {} : { failureRate: fault.failureRate }),
    ...(fault.hang === undefined ? {} : { hang: fault.hang }),
  };
}

/** The same knobs at their defaults: undoing a fault resets what it set and nothing else. */
function defaultsOf(knobs: SetWorkerFaults['faults']): SetWorkerFaults['faults'] {
  const defaults = WorkerFaultsSchema.parse({});
  return Object.fromEntries(Object.keys(knobs).map((key) => [key, defaults[key as keyof typeof defaults]]));
}

/**
 * Does (`start`) and undoes (`undo`) the faults of one run against a target; each call resolves
 * to what was done, for the report. It remembers which instances a fault given by count picked,
 * and which NATS node a fault stopped, so its undo resets or starts those same ones.
 */
export class FaultExecutor {
  private readonly picked = new Map<Fault, readonly (string | undefined)[]>();
  /** The NATS node each stop-nats-node fault stopped, so its undo starts that one. */
  private readonly stoppedNode = new Map<Fault, number>();

  constructor(
    private readonly target: ChaosTarget,
    private readonly controls: FaultControls,
  ) {}

  async execute(fault: Fault, phase: 'start' | 'undo'): Promise<string> {
    const start = phase === 'start';
    switch (fault.action) {
      case 'kill':
      case 'terminate':
        return this.target.act(processName(fault.target), fault.action);
      case 'pause':
        return this.target.act(processName(fault.target), start ? 'pause' : 'resume');
      case 'disconnect':
        return this.target.act(processName(fault.target), start ? 'disconnect' : 'reconnect');
      case 'restart-nats':
        await this.target.restartNats(fault.forMs);
        return `NATS down for ${fault.forMs} ms, then up again`;
      case 'stop-nats-node':
        return start ? this.stopNatsNode(fault) : this.startNatsNode(fault);
      case 'worker-faults':
        return this.workerFaults(fault, start);
      case 'bus-faults': {
        const { subject, delayMs, jitterMs, dropPercent, duplicatePercent } = fault;
        return start ? this.controls.setBusFault({ subject, delayMs, jitterMs, dropPercent, duplicatePercent }) : this.controls.clearBusFault(subject);
      }
    }
  }

  private async stopNatsNode(fault: StopNatsNodeFault): Promise<string> {
    // Chosen when it fires: which node is busiest depends on where the clients are by then.
    const { node, why } = chooseNatsNode(await this.target.natsNodes(), fault.node);
    const done = await this.target.stopNatsNode(node.index);
    this.stoppedNode.set(fault, node.index);
    return `${why}: ${done}${fault.forMs === undefined ? ', for good' : ''}`;
  }

  private async startNatsNode(fault: StopNatsNodeFault): Promise<string> {
    const index = this.stoppedNode.get(fault);
    if (index === undefined) throw new Error('the NATS node was not stopped, so there is none to start');
    return `nats-${index} back: ${await this.target.startNatsNode(index)}`;
  }

  private async workerFaults(fault: WorkerFaultsFault, start: boolean): Promise<string> {
    const knobs = workerKnobs(fault);
    let instances = this.picked.get(fault);
    if (instances === undefined) {
      // undefined: every instance; by count: the first ids, sorted, so a rerun picks alike.
      instances = fault.instanceCount !== undefined ? (await this.controls.workerInstances()).slice(0, fault.instanceCount) : [fault.instance];
      this.picked.set(fault, instances);
    }
    const done: string[] = [];
    for (const instanceId of instances) {
      done.push(await this.controls.setWorkerFaults({ ...(instanceId === undefined ? {} : { instanceId }), faults: start ? knobs : defaultsOf(knobs) }));
    }
    return done.join('; ');
  }
}
