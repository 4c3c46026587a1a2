import type { Micros } from '@sluice/contracts';

/**
 * A stage core's wake-ups on real timers: one pending timer per kind (a later request for the
 * same kind replaces it; the cores ignore the wake-ups they no longer expect anyway). The core is
 * called back with the time it asked for, so a late timer does not shift its schedule, and with
 * the time it really is, for what it observes.
 * `timeScale` is how much faster than real time the core's clock runs (a worker's engine clock).
 */
export class WakeUpTimers<K extends string> {
  private readonly timers = new Map<K, NodeJS.Timeout>();

  constructor(
    private readonly fire: (kind: K, atUs: Micros, nowUs: Micros) => void,
    private readonly nowUs: () => Micros,
    private readonly timeScale = 1,
  ) {}

  wakeAt(kind: K, atUs: Micros): void {
    clearTimeout(this.timers.get(kind));
    const delayMs = Math.max(0, (atUs - this.nowUs()) / this.timeScale / 1_000);
    const timer = setTimeout(() => {
      this.timers.delete(kind);
      this.fire(kind, atUs, this.nowUs());
    }, delayMs);
    // A pending chore must not keep a stopping process alive.
    timer.unref();
    this.timers.set(kind, timer);
  }

  /** Cancels every pending wake-up (shutdown). */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
