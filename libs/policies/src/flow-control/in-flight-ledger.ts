/**
 * The flow controller's own books of what it has dispatched and not yet seen done: the
 * concurrency detector's input, and the utilization detector's correction for snapshots that lag.
 * An entry the worker never reports done (the router refused it, a message was lost) is forgotten
 * at `forgetAtMs`, the request's own deadline, so the books cannot leak. Times are the caller's ms.
 */
export class InFlightLedger {
  private readonly entries = new Map<string, { readonly tokens: number; readonly forgetAtMs: number }>();
  private tokenSum = 0;
  /** Times of recent dispatches, ascending (dispatch times only grow); `start` skips pruned ones. */
  private recent: number[] = [];
  private start = 0;

  /** @param recentWindowMs how far back `dispatchedWithin` can look (the longest snapshot age that matters). */
  constructor(private readonly recentWindowMs = 60_000) {}

  get requests(): number {
    return this.entries.size;
  }

  get tokens(): number {
    return this.tokenSum;
  }

  dispatched(id: string, tokens: number, nowMs: number, forgetAtMs: number): void {
    if (this.entries.has(id)) return;
    this.entries.set(id, { tokens, forgetAtMs });
    this.tokenSum += tokens;
    this.recent.push(nowMs);
    this.prune(nowMs);
  }

  /** The request left the pool (done, dropped, failed, never accepted). False if it was not here. */
  done(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    this.tokenSum -= entry.tokens;
    return true;
  }

  /** Forgets entries past their deadline; returns their ids. */
  expire(nowMs: number): string[] {
    const forgotten: string[] = [];
    // Insertion order is dispatch order, and deadlines mostly follow it: stop at the first live one.
    for (const [id, entry] of this.entries) {
      if (entry.forgetAtMs > nowMs) break;
      forgotten.push(id);
    }
    for (const id of forgotten) this.done(id);
    return forgotten;
  }

  /** Dispatches in the last `ageMs` (done or not: the snapshot of that age saw none of them). */
  dispatchedWithin(nowMs: number, ageMs: number): number {
    if (!(ageMs >= 0)) return 0;
    const since = nowMs - ageMs;
    let lo = this.start;
    let hi = this.recent.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.recent[mid]! < since) lo = mid + 1;
      else hi = mid;
    }
    return this.recent.length - lo;
  }

  private prune(nowMs: number): void {
    const horizon = nowMs - this.recentWindowMs;
    while (this.start < this.recent.length && this.recent[this.start]! < horizon) this.start++;
    if (this.start > 1024 && this.start * 2 > this.recent.length) {
      this.recent = this.recent.slice(this.start);
      this.start = 0;
    }
  }
}
