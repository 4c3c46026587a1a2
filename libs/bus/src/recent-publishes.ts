import type { MsgHdrs } from '@nats-io/transport-node';

/** One message this process published, kept for a moment. */
interface Published {
  readonly subject: string;
  readonly data: string;
  readonly headers: MsgHdrs | undefined;
  readonly atMs: number;
}

/**
 * What this process published in the last `windowMs`: sent again after a reconnect, because what
 * the client wrote just before its server went away can be lost (the socket took it, or the
 * server had it and died before routing it on), and nothing else would send it again. A worker
 * whose node was killed under load lost a request's last tokens and end frame that way, and the
 * request waited for its deadline (the chaos scenario nats-node-loss, 1 of 58). Every receiver
 * takes a published message twice without harm (apps/gateway fault-tolerance: frames, done events,
 * lifecycle and load events arrive twice): the gateway streams a tokens frame only up to its
 * `generated`, a stage counts a request once by its attempt ledger.
 *
 * The window reaches back from the moment the connection was lost, not from the reconnect: a
 * reconnect can take longer than the window (a killed node's clients took 2.2 s to find another),
 * and the messages at risk are the ones written just before the loss. What is published during
 * the outage is kept too (the client buffers it, but flushes it before the receivers' own
 * subscriptions may be back), up to `maxDuringOutage` messages: beyond that only the client's
 * buffer holds them, so a long outage cannot grow this without bound.
 *
 * The time is the caller's (the bus passes its clock); nothing here sets a timer.
 */
export class RecentPublishes {
  private items: Published[] = [];
  /** The first entry still inside the window (older ones are dropped in bulk). */
  private head = 0;
  /** When the connection was lost, while it is away; null while connected. */
  private lostAtMs: number | null = null;
  /** Messages published during this outage that were not kept (over `maxDuringOutage`). */
  private notKept = 0;

  constructor(
    private readonly windowMs: number,
    private readonly maxDuringOutage = 50_000,
  ) {}

  add(subject: string, data: string, headers: MsgHdrs | undefined, nowMs: number): void {
    if (this.lostAtMs !== null && this.size >= this.maxDuringOutage) {
      this.notKept++;
      return;
    }
    this.items.push({ subject, data, headers, atMs: nowMs });
    this.forgetBefore((this.lostAtMs ?? nowMs) - this.windowMs);
  }

  /** The connection is lost at `nowMs`: the window stops moving until `take`. */
  lost(nowMs: number): void {
    if (this.lostAtMs !== null) return;
    this.forgetBefore(nowMs - this.windowMs);
    this.lostAtMs = nowMs;
  }

  /**
   * The connection is back: the messages published from one window before it was lost (or, when
   * no loss was marked, one window before `nowMs`) until now, oldest first; forgets them. `notKept`
   * says how many published during the outage were past the cap.
   */
  take(nowMs: number): { readonly messages: Published[]; readonly notKept: number } {
    this.forgetBefore((this.lostAtMs ?? nowMs) - this.windowMs);
    const taken = { messages: this.items.slice(this.head), notKept: this.notKept };
    this.items = [];
    this.head = 0;
    this.lostAtMs = null;
    this.notKept = 0;
    return taken;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  private forgetBefore(cutoffMs: number): void {
    while (this.head < this.items.length && this.items[this.head]!.atMs < cutoffMs) this.head++;
    // Compact once the dropped prefix is most of the array: amortized O(1) per message.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
