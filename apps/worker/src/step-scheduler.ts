import type { StepResult } from '@sluice/engine';

/** What the scheduler drives: an engine plus what to do when a step ends. Times are engine µs. */
export interface SteppedInstance {
  canStep(nowUs: number): boolean;
  /** When a delayed request joins the wait queue, if nothing else is due; else undefined. */
  nextReadyUs(): number | undefined;
  /** Runs the engine's step at `startUs` (state changes apply at the step's start). */
  beginStep(startUs: number): StepResult;
  /** How much longer than modelled this instance's steps take (fault knob; 1 = as modelled). */
  readonly slowdown: number;
  /** The step's tokens are due: stamp them and send them. */
  endStep(result: StepResult, endUs: number): void;
}

type Due = { kind: 'step'; atUs: number; result: StepResult; modelledUs: number } | { kind: 'ready'; atUs: number };

/** How early the timer fires before a deadline; the rest is a yield-spin (setImmediate polling). */
const SPIN_WINDOW_US = 3_000;

/**
 * One scheduler per worker process drives all of its instances in real time. Each step "runs"
 * for its modelled duration and the next starts exactly where the previous one ended, so a late
 * wake-up never stretches the schedule (drift-corrected). One timer for the earliest deadline,
 * fired a little early, then a short yield-spin to the deadline itself: per-instance timers
 * measured p99 step errors of 4–14 ms with 64 instances on 2 cores, a single scheduler about 2 ms
 * (ARCHITECTURE.md, "Workers").
 *
 * Engine time runs `timeScale` times faster than real time: engine µs = real µs × timeScale.
 */
export class StepScheduler {
  private readonly due = new Map<SteppedInstance, Due>();
  private timer: NodeJS.Timeout | undefined;
  private spinning = false;
  private stopped = false;

  constructor(
    /** Monotonic real time in µs. */
    private readonly realNowUs: () => number,
    private readonly timeScale: number,
    /** Called with |actual − modelled| real µs of every step: the timing-error figure. */
    private readonly onStepError: (errorUs: number) => void = () => undefined,
  ) {}

  /** The engine clock. */
  nowUs(): number {
    return this.realNowUs() * this.timeScale;
  }

  /** An instance got work: start a step now, or wait for its next request's queueing delay. */
  wake(instance: SteppedInstance): void {
    if (this.stopped) return;
    const pending = this.due.get(instance);
    if (pending?.kind === 'step') return;
    this.plan(instance, this.nowUs(), pending);
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Starts a step at `atUs` if the instance can step, else schedules its next ready time. */
  private plan(instance: SteppedInstance, atUs: number, pending?: Due): void {
    if (instance.canStep(atUs)) {
      const result = instance.beginStep(atUs);
      const modelledUs = result.durationUs * instance.slowdown;
      this.due.set(instance, { kind: 'step', atUs: atUs + modelledUs, result, modelledUs });
      return;
    }
    const ready = instance.nextReadyUs();
    if (ready === undefined) {
      if (pending === undefined) this.due.delete(instance);
      return;
    }
    if (pending?.kind === 'ready' && pending.atUs <= ready) return;
    this.due.set(instance, { kind: 'ready', atUs: ready });
  }

  private earliest(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const d of this.due.values()) earliest = Math.min(earliest, d.atUs);
    return earliest;
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.due.size === 0 || this.spinning) return;
    const waitRealUs = (this.earliest() - this.nowUs()) / this.timeScale;
    if (waitRealUs <= SPIN_WINDOW_US) {
      this.spin();
      return;
    }
    this.timer = setTimeout(() => this.spin(), (waitRealUs - SPIN_WINDOW_US) / 1000);
  }

  /** Polls with setImmediate (other I/O still runs) until the earliest deadline has passed. */
  private spin(): void {
    this.spinning = true;
    if (this.stopped) return;
    if (this.nowUs() < this.earliest()) {
      setImmediate(() => this.spin());
      return;
    }
    this.spinning = false;
    this.fire();
  }

  private fire(): void {
    const now = this.nowUs();
    for (const [instance, d] of [...this.due]) {
      if (d.atUs > now) continue;
      this.due.delete(instance);
      if (d.kind === 'step') {
        this.onStepError(Math.abs(now - d.atUs) / this.timeScale);
        instance.endStep(d.result, d.atUs);
      }
      // Back to back: the next step starts where this one ended, not when we got round to it.
      if (!this.stopped) this.plan(instance, d.atUs);
    }
    this.arm();
  }
}
