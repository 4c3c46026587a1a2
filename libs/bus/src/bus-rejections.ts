/**
 * Why a receiving edge refused a message (docs/security.md, "Hostile bus messages"):
 * - `oversized`: more bytes than MAX_BUS_MESSAGE_BYTES, refused before it is parsed;
 * - `malformed`: not JSON;
 * - `schema`: JSON, but not what the subject carries (a wrong shape, a bound exceeded, a forged id);
 * - `abandoned`: a handoff that came too late to be acked before its sender stopped waiting (a frozen
 *   or overloaded receiver, docs/behaviour.md §6): not acked, not served; its sender re-submits it.
 */
export type BusRejectionReason = 'oversized' | 'malformed' | 'schema' | 'abandoned';

/** How often at most one subscription logs what it refused: the counts are in the metrics, a flood is not in the log. */
const LOG_EVERY_MS = 10_000;

/**
 * What this process's receiving edges refused, and how often a handler failed, by subscription.
 * Keyed by the subscription's subject (a pattern such as `sluice.v1.worker.*.done`, or one
 * instance's own submit subject), never by the subject a message came on, so the number of keys
 * is the number of subscriptions: a flood of messages on made-up subjects adds none.
 */
export class BusRejections {
  private readonly rejected = new Map<string, Map<BusRejectionReason, number>>();
  private readonly failed = new Map<string, number>();
  /** Per subscription: when it last logged, and how many refusals it has not logged since. */
  private readonly logged = new Map<string, { atMs: number; unlogged: number }>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Counts a refusal; returns the log line to write, if this subscription is due one. */
  refused(subscription: string, reason: BusRejectionReason, subject: string, detail: string): string | undefined {
    let reasons = this.rejected.get(subscription);
    if (!reasons) this.rejected.set(subscription, (reasons = new Map<BusRejectionReason, number>()));
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    const now = this.nowMs();
    const last = this.logged.get(subscription);
    if (last && now - last.atMs < LOG_EVERY_MS) {
      last.unlogged += 1;
      return undefined;
    }
    const more = last && last.unlogged > 0 ? ` (and ${last.unlogged} more refused on ${subscription} since the last line)` : '';
    this.logged.set(subscription, { atMs: now, unlogged: 0 });
    return `refused a message on ${subject} (${reason}): ${detail.length > 300 ? `${detail.slice(0, 300)}…` : detail}${more}`;
  }

  /** A handler threw on a message that passed the edge. */
  handlerFailed(subscription: string): void {
    this.failed.set(subscription, (this.failed.get(subscription) ?? 0) + 1);
  }

  /** Refusals so far, by subscription and reason. */
  rejections(): { readonly subject: string; readonly reason: BusRejectionReason; readonly count: number }[] {
    return [...this.rejected].flatMap(([subject, reasons]) => [...reasons].map(([reason, count]) => ({ subject, reason, count })));
  }

  /** Handler failures so far, by subscription. */
  handlerFailures(): { readonly subject: string; readonly count: number }[] {
    return [...this.failed].map(([subject, count]) => ({ subject, count }));
  }
}
