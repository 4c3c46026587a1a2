import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { busHeaders } from '@sluice/contracts';
import type { Outbox } from './outbox.js';

/** How a handoff's wait for its ack ended. */
export type AckOutcome = { readonly kind: 'reply'; readonly msg: Msg } | { readonly kind: 'no_responders' } | { readonly kind: 'timeout' } | { readonly kind: 'closed' };

interface Waiting {
  readonly deadline: number;
  /** Ends the wait: the caller's `onSettled` first, then the promise. */
  readonly settle: (outcome: AckOutcome) => void;
}

/**
 * The replies to this process's handoffs, all on one wildcard inbox subscription, each waiting
 * for its ack with a deadline.
 *
 * Why not `nc.request()`: nats.js builds two Error objects per request (one for a possible
 * timeout, one for a possible failure, each capturing a stack) and arms one timer per request.
 * Measured under load (CPU profiles of admission, flow controller and router at
 * ~1,000 requests/s), those errors alone were 13–15% of each stage's busy time. Here a request
 * costs a map entry; every handoff waits the same `ackTimeoutMs`, so deadlines come in the
 * order the entries were made (a Map keeps insertion order) and one timer, armed for the oldest,
 * serves them all.
 *
 * Each handoff carries its give-up time (`busHeaders.ackBy`, this host's wall clock), so a receiver
 * that gets it too late to ack in time leaves it (docs/behaviour.md §6). A timeout is declared only
 * after the process has read its socket once more: a process that was itself stalled past the
 * deadline (a long pause, a busy loop) would otherwise time out handoffs whose acks are waiting
 * unread, since Node runs due timers before it reads sockets.
 */
export class AckInbox {
  private readonly prefix: string;
  private readonly waiting = new Map<string, Waiting>();
  private readonly subscription: Subscription;
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    nc: NatsConnection,
    /** Where the handoffs themselves go out (at the end of the turn, with the rest of it). */
    private readonly outbox: Outbox,
    private readonly timeoutMs: number,
    /** The process's inbox prefix (its bus identity's, when the server restricts who reads replies). */
    inboxPrefix?: string,
    private readonly now: () => number = () => performance.now(),
    private readonly wallNowMs: () => number = Date.now,
  ) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
    this.subscription = nc.subscribe(`${this.prefix}*`, { callback: (error, msg) => (error ? undefined : this.receive(msg)) });
    void this.subscription.closed.then(() => this.settleAll({ kind: 'closed' }));
  }

  /**
   * Publishes `data` with a fresh reply subject and resolves with how its ack wait ended.
   * `onSettled` runs at once when it ends, in the subscription's callback: an ack is then read
   * before any message that arrived after it (a promise's continuation runs only after every
   * message of the same socket read).
   */
  send(subject: string, data: string, headers: MsgHdrs, onSettled?: (outcome: AckOutcome) => void): Promise<AckOutcome> {
    const token = (this.next++).toString(36);
    return new Promise<AckOutcome>((resolve) => {
      const deadline = this.now() + this.timeoutMs;
      const settle = onSettled
        ? (outcome: AckOutcome) => {
            onSettled(outcome);
            resolve(outcome);
          }
        : resolve;
      this.waiting.set(token, { deadline, settle });
      headers.set(busHeaders.ackBy, String(this.wallNowMs() + this.timeoutMs));
      if (this.timer === undefined) this.arm(deadline);
      this.outbox.send(subject, data, headers, this.prefix + token, () => this.settleOne(token, { kind: 'closed' }));
    });
  }

  private receive(msg: Msg): void {
    // The server answers a request nobody subscribes to with a 503 status and no payload.
    const noResponders = msg.data.length === 0 && msg.headers?.code === 503;
    this.settleOne(msg.subject.slice(this.prefix.length), noResponders ? { kind: 'no_responders' } : { kind: 'reply', msg });
  }

  private settleOne(token: string, outcome: AckOutcome): void {
    const waiting = this.waiting.get(token);
    if (waiting === undefined) return; // late: it already timed out
    this.waiting.delete(token);
    this.checkIdle();
    waiting.settle(outcome);
  }

  private arm(at: number): void {
    // setImmediate runs after the poll phase: acks already in the socket are read before the deadline is judged.
    this.timer = setTimeout(() => setImmediate(() => this.expire()), Math.max(0, at - this.now()));
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.now();
    for (const [token, waiting] of this.waiting) {
      if (waiting.deadline > now) {
        this.arm(waiting.deadline);
        return;
      }
      this.waiting.delete(token);
      waiting.settle({ kind: 'timeout' });
    }
    this.checkIdle();
  }

  private settleAll(outcome: AckOutcome): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiting of this.waiting.values()) waiting.settle(outcome);
    this.waiting.clear();
    this.checkIdle();
  }

  /** Resolves once no handoff waits for its ack (each waits at most the ack timeout). */
  whenIdle(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private checkIdle(): void {
    if (this.waiting.size > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Handoffs still waiting for their ack. */
  get size(): number {
    return this.waiting.size;
  }
}
