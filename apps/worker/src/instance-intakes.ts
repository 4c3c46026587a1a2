import type { Subscription } from '@nats-io/transport-node';

/**
 * Each instance's submit subject is open only while the instance takes work (it is ready): a
 * router's handoff to one that is starting, draining or parked finds no responder and is routed
 * elsewhere at once (libs/bus `serve`; the routing core's `handoffRefused`), as a handoff to a
 * worker that shuts down does. The worker calls `follow` for every lifecycle event of an instance
 * before the event is published, so the subject is open before the `register` that makes routers
 * send there, and closed before the `drain` that stops them. A handoff already on its way when the
 * subject closes is still delivered (the subscription drains): the submit handler hands it back.
 */
export class InstanceIntakes {
  private readonly open = new Map<string, Subscription>();
  private stopped = false;

  constructor(
    private readonly takesWork: (instanceId: string) => boolean,
    private readonly subscribe: (instanceId: string) => Subscription,
  ) {}

  /** Opens or closes the instance's submit subject to match whether it takes work now. */
  follow(instanceId: string): void {
    if (this.stopped) return;
    const subscription = this.open.get(instanceId);
    const takes = this.takesWork(instanceId);
    if (takes && subscription === undefined) {
      this.open.set(instanceId, this.subscribe(instanceId));
    } else if (!takes && subscription !== undefined) {
      this.open.delete(instanceId);
      subscription.drain().catch(() => undefined);
    }
  }

  isOpen(instanceId: string): boolean {
    return this.open.has(instanceId);
  }

  /** Shutdown: every subject closes at once and none opens again. */
  closeAll(): void {
    this.stopped = true;
    for (const subscription of this.open.values()) subscription.unsubscribe();
    this.open.clear();
  }
}
