import { micros, type Micros } from '@sluice/contracts';
import type { InstanceWakeUp } from '@sluice/stages';

/** What the scheduler wakes: an instance core (libs/stages InstanceCore fits). */
export interface WakeableInstance {
  wake(kind: InstanceWakeUp, atUs: Micros): void;
}

/** An instance's pending wake-ups, one per kind (a newer one replaces it); made once per instance. */
type Pending = Record<InstanceWakeUp, Micros | undefined>;

const KINDS: readonly InstanceWakeUp[] = ['step', 'ready', 'transfer'];

/** How early the timer fires before a deadline; the rest is a yield-spin (setImmediate polling). */
const SPIN_WINDOW_US = 3_000;

/**
 * The worker's instances' wake-ups in real time: a step's end, a request leaving its queueing
 * delay, a KV transfer landing. One timer for the earliest deadline of all of them, fired a little early, then a short
 * yield-spin to the deadline itself: per-instance timers measured p99 step errors of 1.45 ms
 * with 64 busy instances on 2 cores, this 0.012 ms (docs/benchmarks.md). Each wake-up is called
 * with the time it asked for, so the core starts its next step exactly where the last one ended
 * however late the call (drift-corrected). Asking for a wake-up allocates nothing: it runs once
 * per step of every instance.
 *
 * Engine time runs `timeScale` times faster than real time: engine µs = real µs × timeScale.
 */
export class RealTimeWakeUps {
  private readonly due = new Map<WakeableInstance, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private spinning = false;
  /** Calling wake-ups: those they ask for are armed once, after the round. */
  private firing = false;
  private stopped = false;

  constructor(
    /** Monotonic real time in µs. */
    private readonly realNowUs: () => number,
    private readonly timeScale: number,
    /** Called with how late (real µs) each step's end was called: the timing-error figure. */
    private readonly onStepLate: (lateRealUs: number) => void = () => undefined,
  ) {}

  /** The engine clock. */
  nowUs(): Micros {
    return micros(this.realNowUs() * this.timeScale);
  }

  /** Calls `instance.wake(kind, atUs)` at engine time `atUs`, replacing its pending wake-up of that kind. */
  wakeAt(instance: WakeableInstance, kind: InstanceWakeUp, atUs: Micros): void {
    if (this.stopped) return;
    let pending = this.due.get(instance);
    if (pending === undefined) {
      pending = { step: undefined, ready: undefined, transfer: undefined };
      this.due.set(instance, pending);
    }
    pending[kind] = atUs;
    if (!this.firing) this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.due.clear();
  }

  private earliest(): number {
    let earliest = Number.POSITIVE_INFINITY;
    // Polled on every spin: the kinds read directly.
    for (const { step, ready, transfer } of this.due.values()) {
      if (step !== undefined && step < earliest) earliest = step;
      if (ready !== undefined && ready < earliest) earliest = ready;
      if (transfer !== undefined && transfer < earliest) earliest = transfer;
    }
    return earliest;
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.spinning) return;
    const earliest = this.earliest();
    if (earliest === Number.POSITIVE_INFINITY) return;
    const waitRealUs = (earliest - this.nowUs()) / this.timeScale;
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

  /** Calls every wake-up that is due, earliest first. */
  private fire(): void {
    const now = this.nowUs();
    const ready: { instance: WakeableInstance; pending: Pending; kind: InstanceWakeUp; atUs: Micros }[] = [];
    for (const [instance, pending] of this.due) {
      for (const kind of KINDS) {
        const atUs = pending[kind];
        if (atUs !== undefined && atUs <= now) ready.push({ instance, pending, kind, atUs });
      }
    }
    ready.sort((a, b) => a.atUs - b.atUs);
    this.firing = true;
    try {
      for (const { instance, pending, kind, atUs } of ready) {
        if (pending[kind] !== atUs) continue; // replaced by an earlier call in this round
        pending[kind] = undefined;
        if (kind === 'step') this.onStepLate((now - atUs) / this.timeScale);
        instance.wake(kind, atUs);
      }
    } finally {
      this.firing = false;
    }
    this.arm();
  }
}
