/**
 * The door of one stage process (admission, flow control, the router): while the process is
 * paused (SIGSTOP, a long GC pause), nothing it is sent is handled and none of its timers fire.
 * The moment the pause ends, the messages that waited are handled in the order they arrived, then
 * the timers that came due (a sweep, a refresh, a TTL, an ack timeout), as an overdue timer fires
 * once on resuming. Handling the waiting heartbeats before the overdue sweep is one reading of a
 * live resume (its event loop may run either first); with the sweep first, every instance would
 * look silent for the length of the pause.
 *
 * A simplification of the live freeze: senders are not made to wait for acks that never come (no
 * ack timeout, no hand-back while the process is frozen), and the gateway does not declare the
 * silent process lost (no presence heartbeats in the twin).
 */
export class StageGate {
  private pauses = 0;
  private backlog: (() => void)[] = [];
  private overdue: (() => void)[] = [];

  get paused(): boolean {
    return this.pauses > 0;
  }

  /** Runs `handle` now, or when the pause ends. */
  pass(handle: () => void): void {
    if (this.pauses > 0) this.backlog.push(handle);
    else handle();
  }

  /** Holds `handle` until the pause ends (the caller checked `paused`). */
  defer(handle: () => void): void {
    this.backlog.push(handle);
  }

  /** A timer of the stage fires: now, or after the waiting messages when the pause ends. */
  timer(fire: () => void): void {
    if (this.pauses > 0) this.overdue.push(fire);
    else fire();
  }

  pause(): void {
    this.pauses++;
  }

  /** One pause ends; when none is left, what waited is handled: messages in arrival order, then timers. Returns how many. */
  resume(): number {
    if (this.pauses === 0 || --this.pauses > 0) return 0;
    const waiting = [...this.backlog, ...this.overdue];
    this.backlog = [];
    this.overdue = [];
    for (const handle of waiting) handle();
    return waiting.length;
  }
}
