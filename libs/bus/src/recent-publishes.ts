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
 * The time is the caller's (the bus passes its clock); nothing here sets a timer.
 */
export class RecentPublishes {
  private items: Published[] = [];
  /** The first entry still inside the window (older ones are dropped in bulk). */
  private head = 0;

  constructor(private readonly windowMs: number) {}

  add(subject: string, data: string, headers: MsgHdrs | undefined, nowMs: number): void {
    this.items.push({ subject, data, headers, atMs: nowMs });
    this.forgetBefore(nowMs - this.windowMs);
  }

  /** The messages published within the window before `nowMs`, oldest first, and forgets them. */
  take(nowMs: number): Published[] {
    this.forgetBefore(nowMs - this.windowMs);
    const taken = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
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
