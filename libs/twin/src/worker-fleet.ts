import type { InstanceCore } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { StepTimes } from './step-times.js';
import type { WorkerProcess } from './worker-process.js';

/** One instance of the twin: its core, the worker process hosting it, its place among all instances, its step log. */
export interface TwinInstance {
  readonly core: InstanceCore<Flight>;
  readonly process: WorkerProcess;
  /** Its index in `WorkerFleet.instanceList` (what a flight's `servedBy` holds). */
  readonly index: number;
  readonly steps: StepTimes;
}

/** The twin's worker processes (`worker-0`, …) and every instance they host, in the order the processes were started. */
export class WorkerFleet {
  readonly instanceList: readonly TwinInstance[];
  readonly instances: ReadonlyMap<string, TwinInstance>;

  constructor(readonly processes: readonly WorkerProcess[]) {
    this.instanceList = processes.flatMap((process) => process.stage.instances.map((core) => ({ core, process, steps: process.steps[core.rank]! }))).map((instance, index) => ({ ...instance, index }));
    this.instances = new Map(this.instanceList.map((instance) => [instance.core.instanceId, instance]));
  }

  /** The instance a flight was handed to, if it was routed. */
  servedBy(flight: Flight): TwinInstance | undefined {
    return this.instanceList[flight.servedBy];
  }
}
