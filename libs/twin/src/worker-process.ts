import { seedOf, seededRandom } from '@sluice/collections';
import { WorkerStage, type WorkerSettings } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { TwinNetwork } from './network.js';
import { StepTimes } from './step-times.js';
import { WorkerHops } from './worker-hops.js';
import type { ProcessState, WorkerProcessWiring } from './worker-wiring.js';

/**
 * One worker process of the twin (`worker-N`, as `sluice up` starts `worker.processes` of them):
 * a WorkerStage of its own with its `worker.instances` instances, so that a kill or a drain takes
 * exactly the instances one live process would take with it. Killing it is silence (the stages
 * find out by missed heartbeats); terminating it is the worker service's graceful shutdown: drain,
 * finish within the grace period, hand back the rest, deregister.
 */
export class WorkerProcess {
  state: ProcessState = 'up';
  readonly stage: WorkerStage<Flight>;
  /** Each instance's step log, by rank. */
  readonly steps: readonly StepTimes[];
  /** Its instances' worker id (`twin`, or `twin-N` with several processes). */
  readonly workerId: string;
  private readonly network: TwinNetwork;
  private readonly shutdownGraceUs: number;

  constructor(
    /** Its name in a scenario: `worker-0`, `worker-1`, … */
    readonly name: string,
    settings: WorkerSettings,
    wiring: WorkerProcessWiring,
  ) {
    this.workerId = settings.workerId;
    this.network = wiring.network;
    this.shutdownGraceUs = wiring.shutdownGraceUs;
    this.steps = Array.from({ length: settings.instances }, () => new StepTimes());
    this.stage = new WorkerStage(settings, new WorkerHops(this, wiring), (instanceId) => seededRandom(seedOf(instanceId)));
  }

  /** Whether the instance may take a request now: its process is up and the instance is ready (not parked, starting or draining under an autoscaler). */
  takesWork(instanceId: string): boolean {
    return this.state === 'up' && this.stage.slots.takesWork(instanceId);
  }

  /** `kill -9`: it stops where it is. Nothing is announced; its instances just fall silent. */
  kill(): string {
    if (this.state === 'gone') return `${this.name} was already gone`;
    this.state = 'gone';
    return `${this.name} killed: ${this.instanceIds()} fall silent`;
  }

  /**
   * SIGTERM: its instances announce the drain (routing stops sending to them at once) and stop
   * listening; what they hold may finish within the grace period; what is left then goes back to
   * the gateways; then they deregister.
   */
  terminate(): string {
    if (this.state !== 'up') return `${this.name} was already ${this.state}`;
    const now = this.network.nowUs;
    this.state = 'draining';
    this.stage.drain(now);
    if (!this.stage.hasWork()) {
      this.leave();
      return `${this.name} terminated: ${this.instanceIds()} drained (nothing running) and deregistered`;
    }
    this.network.queue.at(now + this.shutdownGraceUs, 'fault', () => {
      if (this.state === 'draining') this.leave();
    });
    return `${this.name} terminated: ${this.instanceIds()} draining, ${this.shutdownGraceUs / 1000} ms grace`;
  }

  /** A step of one of its instances ended while it drains: once nothing is left to run, it leaves (the live worker checks every 20 ms). */
  stepped(): void {
    if (this.state === 'draining' && !this.stage.hasWork()) this.leave();
  }

  /** The end of the drain: what is still held goes back to its gateway, then every instance deregisters. */
  private leave(): void {
    const now = this.network.nowUs;
    this.stage.handBackAll(now);
    this.stage.stop(now);
    this.state = 'gone';
  }

  private instanceIds(): string {
    const ids = this.stage.instances.map((core) => core.instanceId);
    return ids.length === 1 ? ids[0]! : `${ids[0]}…${ids.at(-1)}`;
  }
}
