/**
 * Runs `action` at once, then at most once per `intervalMs`: a call within the interval is folded
 * into one run at its end. Discovery is a question anyone on the bus can ask, and each answer is a
 * `register` per instance to every stage; without this a flood of `discover` messages became a
 * flood N times larger, while a stage that asks still gets its answer within the interval.
 */
export class Coalesced {
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private pending: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly action: () => void,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  request(): void {
    if (this.pending) return;
    const wait = this.lastRunAt + this.intervalMs - this.nowMs();
    if (wait <= 0) return this.run();
    this.pending = setTimeout(() => this.run(), wait);
    this.pending.unref();
  }

  stop(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
  }

  private run(): void {
    this.pending = undefined;
    this.lastRunAt = this.nowMs();
    this.action();
  }
}
