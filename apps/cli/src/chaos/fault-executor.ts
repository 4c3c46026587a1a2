import { liveRun, type Fault, type FaultControls, type FaultRegistry, type LiveFaultRun, type LiveTarget } from '@sluice/workload';

/**
 * Does (`start`) and undoes (`undo`) the faults of one run against a target, each with the
 * target's own action from the fault's folder (libs/workload's chaos faults); each call resolves
 * to what was done, for the report. A fault's run keeps what its start chose (the instances, the
 * NATS node, the networks), so its undo reaches those same ones.
 */
export class FaultExecutor {
  private readonly runs = new Map<Fault, LiveFaultRun>();

  constructor(
    private readonly registry: FaultRegistry,
    private readonly target: LiveTarget,
    private readonly controls: FaultControls,
  ) {}

  async execute(fault: Fault, phase: 'start' | 'undo'): Promise<string> {
    let run = this.runs.get(fault);
    if (run === undefined) {
      run = liveRun(this.registry.of(fault), fault, this.target, this.controls);
      this.runs.set(fault, run);
    }
    if (phase === 'start') return run.start();
    if (run.undo === undefined) throw new Error(`${fault.action} has no undo`);
    return run.undo();
  }
}
