import type { StepResult } from '@sluice/engine';

/** What the scheduler drives: an engine plus what to do when a step ends. */
export interface SteppedInstance {
  hasWork(): boolean;
  /** Runs the engine's step at `startUs` (state changes apply at the step's start). */
  beginStep(startUs: number): StepResult;
  /** The step's tokens are due: stamp them and send them. */
  endStep(result: StepResult, endUs: number): void;
}

/**
 * One scheduler per worker process drives all of its instances in real time: each step "runs"
 * for its modelled duration, and the next starts where the previous ended (drift-corrected: a
 * late timer does not stretch the schedule). One timer for the earliest step end, not one per
 * instance, because per-instance timers measured far worse step-timing errors on 2 cores
 * (ARCHITECTURE.md, "Workers").
 */
export class StepScheduler {
  private readonly inStep = new Map<SteppedInstance, { result: StepResult; endUs: number }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly nowUs: () => number) {}

  /** An instance got work: start a step now unless one is already running. */
  wake(instance: SteppedInstance): void {
    if (this.stopped || this.inStep.has(instance) || !instance.hasWork()) return;
    this.begin(instance, this.nowUs());
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private begin(instance: SteppedInstance, startUs: number): void {
    const result = instance.beginStep(startUs);
    this.inStep.set(instance, { result, endUs: startUs + result.durationUs });
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.inStep.size === 0) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const { endUs } of this.inStep.values()) earliest = Math.min(earliest, endUs);
    this.timer = setTimeout(() => this.fire(), Math.max(0, (earliest - this.nowUs()) / 1000));
  }

  private fire(): void {
    const now = this.nowUs();
    for (const [instance, { result, endUs }] of [...this.inStep]) {
      if (endUs > now) continue;
      this.inStep.delete(instance);
      instance.endStep(result, endUs);
      if (!this.stopped && instance.hasWork()) this.begin(instance, endUs);
    }
    this.arm();
  }
}
