/** What a stage does with a copy of a request that reaches it. */
export type Arrival =
  /** The first time this attempt is seen, and nothing cancelled it: serve it. */
  | 'serve'
  /**
   * Serve it, and an older attempt of the same request came here before: if this stage still
   * holds that one (the cancel that superseded it was lost, say in a bus outage), drop it first.
   */
  | 'supersede'
  /** This attempt was seen already (a duplicated handoff): serving it again would double it. */
  | 'duplicate'
  /** A newer attempt was seen: this one was superseded by a re-submission. */
  | 'stale'
  /** The gateway cancelled it (ended, or re-submitted it as a newer attempt) before it got here. */
  | 'cancelled'
  /** Its deadline passed: its gateway has answered 504 already. */
  | 'expired';

interface Entry {
  /** The newest attempt seen (−1: none yet, only a cancel). */
  attempt: number;
  /** Attempts up to and including this one are cancelled (−1: none). */
  cancelledUpTo: number;
  /** Forgotten after this: by then its gateway has ended the request (its deadline) for sure. */
  forgetAtUs: number;
}

/**
 * A stage's memory of the requests it was handed, keyed by (request id, attempt), so it serves each
 * attempt of a live request once (docs/behaviour.md §6, idempotence): a duplicated handoff, an
 * attempt that a re-submission superseded, or one that arrives after the gateway ended the request
 * (a frozen stage waking up) is not served. Cancels that arrive before the request are kept as
 * tombstones. Entries are forgotten at the request's deadline (or `tombstoneUs` after a cancel for
 * a request never seen), oldest first, and never later than `maxHoldUs` after they were last
 * touched: a deadline is whatever the sender wrote, and a forged one in the year 3000 would
 * otherwise be kept for good, and keep every entry behind it. Pure: the caller passes
 * the time (µs, any epoch).
 */
export class AttemptLedger {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly tombstoneUs: number,
    private readonly maxHoldUs: number = Number.POSITIVE_INFINITY,
  ) {}

  /** A copy of the request reached the stage: whether to serve it, and it is remembered either way. */
  arrive(requestId: string, attempt: number, deadlineUs: number, nowUs: number): Arrival {
    this.forgetExpired(nowUs);
    if (nowUs >= deadlineUs) return 'expired';
    const entry = this.entries.get(requestId);
    const forgetAtUs = Math.min(deadlineUs, nowUs + this.maxHoldUs);
    if (!entry) {
      this.entries.set(requestId, { attempt, cancelledUpTo: -1, forgetAtUs });
      return 'serve';
    }
    if (attempt <= entry.cancelledUpTo) return 'cancelled';
    if (attempt < entry.attempt) return 'stale';
    if (attempt === entry.attempt) return 'duplicate';
    const older = entry.attempt >= 0;
    entry.attempt = attempt;
    entry.forgetAtUs = forgetAtUs > entry.forgetAtUs ? forgetAtUs : entry.forgetAtUs;
    return older ? 'supersede' : 'serve';
  }

  /** The gateway cancelled attempts up to `attempt` (every attempt when undefined). */
  cancel(requestId: string, attempt: number | undefined, nowUs: number): void {
    this.forgetExpired(nowUs);
    const upTo = attempt ?? Number.MAX_SAFE_INTEGER;
    const entry = this.entries.get(requestId);
    if (entry) {
      entry.cancelledUpTo = Math.max(entry.cancelledUpTo, upTo);
      return;
    }
    this.entries.set(requestId, { attempt: -1, cancelledUpTo: upTo, forgetAtUs: nowUs + this.tombstoneUs });
  }

  /** Whether this attempt is still the one to work on (a cancel may have come while it was held). */
  isLive(requestId: string, attempt: number): boolean {
    const entry = this.entries.get(requestId);
    return entry === undefined || (attempt > entry.cancelledUpTo && attempt >= entry.attempt);
  }

  /** The newest attempt seen here, if any. */
  latestAttempt(requestId: string): number | undefined {
    const attempt = this.entries.get(requestId)?.attempt;
    return attempt === undefined || attempt < 0 ? undefined : attempt;
  }

  size(): number {
    return this.entries.size;
  }

  /**
   * Entries are added in roughly increasing forget time (deadlines are arrival + one timeout), so
   * the oldest are at the head of the map: drop them while they are due, and stop at the first that
   * is not (a late one behind it waits a little longer, which is harmless).
   */
  private forgetExpired(nowUs: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.forgetAtUs > nowUs) return;
      this.entries.delete(id);
    }
  }
}
