import type { Micros } from '@sluice/contracts';

/**
 * How a stage core asks to be called again later: the driver calls the core's
 * `wake(kind, atUs, nowUs)` at `atUs` (a service with a timer, the twin with an event on its
 * agenda). `atUs` names the wake-up (the time asked for), `nowUs` is when it really runs: a timer
 * can be late, and what a core observes then (a snapshot, who went silent) is as of `nowUs`, while
 * its schedule (the next tick, the next step) goes on from `atUs` and so never drifts. In the twin
 * the two are equal. A core may ask again before an earlier wake-up has run; it ignores the
 * wake-ups it no longer expects, so a driver never has to cancel one (a service may, to save a
 * timer).
 */
export interface WakeUps<K extends string> {
  wakeAt(kind: K, atUs: Micros): void;
}

/**
 * One periodic chore of a stage (a heartbeat sweep, a snapshot refresh): it knows when it is due
 * next and which wake-up is its own.
 */
export class Periodic<K extends string> {
  private dueUs: Micros | undefined;

  constructor(
    private readonly kind: K,
    readonly everyUs: Micros,
    private readonly wakeUps: WakeUps<K>,
  ) {}

  /** Asks for the first wake-up, one period from now. */
  start(nowUs: Micros): void {
    this.arm(nowUs);
  }

  /** True when `atUs` is this chore's pending wake-up (the caller then does the chore); it re-arms. */
  due(atUs: Micros): boolean {
    if (atUs !== this.dueUs) return false;
    this.arm(atUs);
    return true;
  }

  /** No more wake-ups (shutdown). */
  stop(): void {
    this.dueUs = undefined;
  }

  private arm(nowUs: Micros): void {
    this.dueUs = (nowUs + this.everyUs) as Micros;
    this.wakeUps.wakeAt(this.kind, this.dueUs);
  }
}
