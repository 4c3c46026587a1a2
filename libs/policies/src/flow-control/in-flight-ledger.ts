import { Heap } from '@sluice/collections';
import type { Micros } from '@sluice/contracts';
import { RecentDispatches } from './recent-dispatches.js';

interface LedgerEntry {
  readonly id: string;
  readonly tokens: number;
  readonly forgetAtUs: number;
  /** Dispatch order (the n-th dispatch is n): ties of `forgetAtUs` are forgotten in it; its mark in `recent`. */
  readonly seq: number;
}

const byDeadline = (a: LedgerEntry, b: LedgerEntry) => a.forgetAtUs - b.forgetAtUs || a.seq - b.seq;

/**
 * The flow controller's own books of what it has dispatched and not yet seen done: the
 * concurrency detector's input, and the utilization detector's correction for snapshots that lag.
 * An entry the worker never reports done (the router refused it, a message was lost) is forgotten
 * at `forgetAtUs`, the request's own deadline, so the books cannot leak. Times are the caller's µs.
 */
export class InFlightLedger {
  private readonly entries = new Map<string, LedgerEntry>();
  /**
   * Every entry by `forgetAtUs`, earliest first: deadlines need not follow dispatch order (a long
   * request sent first must not keep a lost short one on the books). Done entries are skipped
   * when they surface, and the heap is rebuilt when they dominate it.
   */
  private deadlines = new Heap<LedgerEntry>(byDeadline);
  private seq = 0;
  private tokenSum = 0;
  /** Times of recent dispatches, each marked when it leaves the books. */
  private readonly recent = new RecentDispatches();

  /** @param recentWindowUs how far back `dispatchedWithin` can look (the longest snapshot age that matters). */
  constructor(private readonly recentWindowUs = 60_000_000) {}

  get requests(): number {
    return this.entries.size;
  }

  get tokens(): number {
    return this.tokenSum;
  }

  dispatched(id: string, tokens: number, nowUs: Micros, forgetAtUs: Micros): void {
    if (this.entries.has(id)) return;
    const entry: LedgerEntry = { id, tokens, forgetAtUs, seq: this.seq++ };
    this.entries.set(id, entry);
    this.deadlines.push(entry);
    this.tokenSum += tokens;
    this.recent.push(nowUs, nowUs - this.recentWindowUs);
  }

  /** The request left the pool (done, dropped, failed, never accepted). False if it was not here. */
  done(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    this.tokenSum -= entry.tokens;
    this.recent.markDone(entry.seq);
    this.compactDeadlines();
    return true;
  }

  /** Forgets every entry whose deadline is at or before `nowUs`, earliest deadline first; returns their ids. */
  expire(nowUs: Micros): string[] {
    const forgotten: string[] = [];
    for (let top = this.deadlines.peek(); top !== undefined && top.forgetAtUs <= nowUs; top = this.deadlines.peek()) {
      this.deadlines.pop();
      // Skip entries already done (or done and dispatched again under the same id: a new entry).
      if (this.entries.get(top.id) !== top) continue;
      this.entries.delete(top.id);
      this.tokenSum -= top.tokens;
      this.recent.markDone(top.seq);
      forgotten.push(top.id);
    }
    return forgotten;
  }

  /** Dispatches in the last `ageUs` (done or not: the snapshot of that age saw none of them). */
  dispatchedWithin(nowUs: Micros, ageUs: number): number {
    return this.recent.within(nowUs, ageUs);
  }

  /** Of those, the ones still on the books (not reported done nor forgotten). */
  inFlightDispatchedWithin(nowUs: Micros, ageUs: number): number {
    return this.recent.inFlightWithin(nowUs, ageUs);
  }

  /** Done entries linger in the deadline heap until their deadline; rebuild when they dominate. */
  private compactDeadlines(): void {
    if (this.deadlines.size < 1024 || this.deadlines.size < 4 * this.entries.size) return;
    const deadlines = new Heap<LedgerEntry>(byDeadline);
    for (const entry of this.entries.values()) deadlines.push(entry);
    this.deadlines = deadlines;
  }

}
