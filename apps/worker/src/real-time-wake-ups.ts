import { micros, type Micros } from '@sluice/contracts';

/** Called at the engine time it asked for, with how late (real µs) the call came. */
export type WakeUpCall = (atUs: Micros, lateRealUs: number) => void;

/** How early the timer fires before a deadline; the rest is a yield-spin (setImmediate polling). */
const SPIN_WINDOW_US = 3_000;

/**
 * The worker's instances' wake-ups in real time: a step's end, a request leaving its queueing
 * delay. One timer for the earliest deadline of all of them, fired a little early, then a short
 * yield-spin to the deadline itself: per-instance timers measured p99 step errors of 1.45 ms
 * with 64 busy instances on 2 cores, this 0.012 ms (docs/benchmarks.md). Each wake-up is called
 * with the time it asked for, so the core starts its next step exactly where the last one ended
 * however late the call (drift-corrected).
 *
 * Engine time runs `timeScale` times faster than real time: engine µs = real µs × timeScale.
 */
export class RealTimeWakeUps {
  /** One pending wake-up per key (an instance and a kind): a newer one replaces it. */
  private readonly due = new Map<string, { readonly atUs: Micros; readonly call: WakeUpCall }>();
  private timer: NodeJS.Timeout | undefined;
  private spinning = false;
  /** Calling wake-ups: those they ask for are armed once, after the round. */
  private firing = false;
  private stopped = false;

  constructor(
    /** Monotonic real time in µs. */
    private readonly realNowUs: () => number,
    private readonly timeScale: number,
  ) {}

  /** The engine clock. */
  nowUs(): Micros {
    return micros(this.realNowUs() * this.timeScale);
  }

  wakeAt(key: string, atUs: Micros, call: WakeUpCall): void {
    if (this.stopped) return;
    this.due.set(key, { atUs, call });
    if (!this.firing) this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.due.clear();
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

  /** Calls every wake-up that is due, earliest first. */
  private fire(): void {
    const now = this.nowUs();
    const ready = [...this.due].filter(([, d]) => d.atUs <= now).sort((a, b) => a[1].atUs - b[1].atUs);
    this.firing = true;
    try {
      for (const [key, d] of ready) {
        if (this.due.get(key) !== d) continue; // replaced by an earlier call in this round
        this.due.delete(key);
        d.call(d.atUs, (now - d.atUs) / this.timeScale);
      }
    } finally {
      this.firing = false;
    }
    this.arm();
  }
}
