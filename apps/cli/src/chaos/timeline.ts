import { faultWindow, type Fault, type FaultRegistry } from '@sluice/workload';

/**
 * The fault timeline of a run: each fault starts at its offset from the first request and, when
 * it is undone (`forMs`), is undone that much later. Time comes from an injected clock, so the
 * schedule is tested without sleeping.
 */

export interface TimelineStep {
  /** Offset from the first request. */
  readonly atMs: number;
  /** Index of the fault in the scenario. */
  readonly fault: number;
  readonly phase: 'start' | 'undo';
}

export interface TimelineClock {
  /** ms on the run's clock (the records' clock). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** What became of one step. Times are on the run's clock. */
export interface StepResult {
  readonly step: TimelineStep;
  /** When it was fired; null when it was skipped. */
  readonly firedAtMs: number | null;
  /** When what it did had finished (a NATS restart takes its down time). */
  readonly doneAtMs?: number;
  /** What was done, e.g. `SIGKILL pid 4711`. */
  readonly detail?: string;
  readonly error?: string;
  /** Why it was not fired. */
  readonly skipped?: string;
}

/**
 * The steps in firing order. A fault that ends with its start (a NATS restart: the target stops
 * NATS and starts it again after `forMs`) is one step; a fault without `forMs` (a kill: the
 * supervisor restarts the process) has no undo.
 */
export function timelineSteps(faults: readonly Fault[], registry: FaultRegistry): TimelineStep[] {
  const steps: TimelineStep[] = [];
  faults.forEach((fault, index) => {
    const { startMs, endMs } = faultWindow(fault);
    steps.push({ atMs: startMs, fault: index, phase: 'start' });
    if (endMs !== undefined && registry.of(fault).endsWithItsStart !== true) steps.push({ atMs: endMs, fault: index, phase: 'undo' });
  });
  // Stable: at one instant, scenario order, a fault's start before its undo.
  return steps.sort((a, b) => a.atMs - b.atMs || a.fault - b.fault || (a.phase === 'start' ? -1 : 1));
}

/**
 * Fires the steps at `t0 + atMs`. A step does not wait for the one before it to finish (a slow
 * docker call must not shift the next fault), except that an undo waits for its own start. Once
 * `finish()` is called (the workload is over), starts not yet fired are skipped and the undos of
 * the faults that did start run at once, so nothing stays broken.
 */
export class Timeline {
  private readonly results: StepResult[] = [];
  private readonly running: Promise<void>[] = [];
  /** Each fault's start as it runs: an undo waits for it unless it is done. */
  private readonly started = new Map<number, { promise: Promise<void>; done: boolean }>();
  private finishing = false;
  private wake: () => void = () => undefined;
  private readonly woken = new Promise<void>((resolve) => (this.wake = resolve));
  private loop: Promise<void> | undefined;

  constructor(
    private readonly steps: readonly TimelineStep[],
    private readonly clock: TimelineClock,
    private readonly execute: (step: TimelineStep) => Promise<string>,
  ) {}

  /** Starts the schedule with the first request sent at `t0` (run clock). */
  start(t0: number): void {
    this.loop ??= this.fireAll(t0);
  }

  /** Ends the schedule early if it has not run out, and resolves with every step's result once all are done. */
  async finish(): Promise<StepResult[]> {
    this.finishing = true;
    this.wake();
    await (this.loop ?? this.fireAll(this.clock.now()));
    await Promise.all(this.running);
    return [...this.results].sort((a, b) => a.step.atMs - b.step.atMs || a.step.fault - b.step.fault);
  }

  private async fireAll(t0: number): Promise<void> {
    for (const step of this.steps) {
      const wait = t0 + step.atMs - this.clock.now();
      if (wait > 0 && !this.finishing) await Promise.race([this.clock.sleep(wait), this.woken]);
      if (this.finishing && step.phase === 'start') {
        this.results.push({ step, firedAtMs: null, skipped: 'the workload ended first' });
        continue;
      }
      this.fire(step);
    }
  }

  private fire(step: TimelineStep): void {
    const start = step.phase === 'undo' ? this.started.get(step.fault) : undefined;
    if (step.phase === 'undo' && start === undefined) {
      this.results.push({ step, firedAtMs: null, skipped: 'its fault never started' });
      return;
    }
    // Run now (its time is read before anything else can move the clock), or once its start is done.
    const run = start === undefined || start.done ? this.run(step) : start.promise.then(() => this.run(step));
    if (step.phase === 'start') {
      const entry = { promise: run, done: false };
      void run.then(() => (entry.done = true));
      this.started.set(step.fault, entry);
    }
    this.running.push(run);
  }

  private async run(step: TimelineStep): Promise<void> {
    const firedAtMs = this.clock.now();
    try {
      const detail = await this.execute(step);
      this.results.push({ step, firedAtMs, doneAtMs: this.clock.now(), detail });
    } catch (error) {
      this.results.push({ step, firedAtMs, doneAtMs: this.clock.now(), error: error instanceof Error ? error.message : String(error) });
    }
  }
}
