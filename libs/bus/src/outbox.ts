import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';

/** One message waiting for the end of the turn. */
interface Queued {
  readonly subject: string;
  readonly data: string;
  readonly headers: MsgHdrs | undefined;
  readonly reply: string | undefined;
  /** Told when the client refuses the message (the connection is closed). */
  readonly onRefused: ((error: unknown) => void) | undefined;
}

/**
 * Everything a process sends in one event-loop turn leaves in one socket write.
 *
 * nats.js flushes its outbound buffer on a microtask, so each I/O callback that publishes costs
 * one `write` syscall: a stage that acks a handoff, then (on the next microtask) hands the request
 * on and tells the gateway who holds it, made two or three writes per request, and one more per
 * further message that arrived in its own read. Measured on the 2-core development VM under load
 * (CPU profiles at ~2,000 requests/s), `writeBuffer` was 20–32% of every service's busy
 * time. Here sends are queued in order and handed to the client together in a `setImmediate`,
 * which runs after every I/O callback of the current poll phase: the client then flushes them in
 * one write. The delay is the rest of the current turn (microseconds when idle).
 */
export class Outbox {
  private queued: Queued[] = [];
  private scheduled = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly onError: (subject: string, error: unknown) => void,
  ) {}

  /** Queues a message; `onRefused` hears it if the client cannot take it when the turn ends. */
  send(subject: string, data: string, headers?: MsgHdrs, reply?: string, onRefused?: (error: unknown) => void): void {
    this.queued.push({ subject, data, headers, reply, onRefused });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Hands everything queued to the client now (at the end of a turn, and before a drain or flush). */
  readonly flush = (): void => {
    this.scheduled = false;
    const queued = this.queued;
    if (queued.length === 0) return;
    this.queued = [];
    for (const message of queued) {
      try {
        // Encoded here rather than by the client: nats.js encodes a string with a TextEncoder,
        // a fresh buffer each time, about 300 ns for a ~440-byte request on the development VM;
        // Buffer.from carves it from a shared slab in about 65 ns. Under load `encode` was 3–10%
        // of each service's busy time (CPU profiles at 1,000 requests/s, docs/benchmarks.md).
        this.nc.publish(message.subject, Buffer.from(message.data), { headers: message.headers, reply: message.reply });
      } catch (error) {
        if (message.onRefused) message.onRefused(error);
        else this.onError(message.subject, error);
      }
    }
  };

  /** Messages waiting for the end of the turn. */
  get size(): number {
    return this.queued.length;
  }
}
