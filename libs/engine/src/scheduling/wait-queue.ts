import type { EngineRequest } from '../engine.types.js';
import type { Sequence } from '../sequence.js';
import type { InstanceScheduler } from './instance-scheduler.js';

/**
 * The requests waiting for the running batch, head first. Under fcfs it is a plain list (new
 * requests at the back, preempted ones at the front); under an ordering scheduler every request
 * is placed by the scheduler's order, which is what BLIS gets by re-sorting the queue each step.
 */
export class WaitQueue<R extends EngineRequest = EngineRequest> implements Iterable<Sequence<R>> {
  private readonly items: Sequence<R>[] = [];

  constructor(private readonly scheduler: InstanceScheduler) {}

  get length(): number {
    return this.items.length;
  }

  peek(): Sequence<R> | undefined {
    return this.items[0];
  }

  shift(): Sequence<R> | undefined {
    return this.items.shift();
  }

  /** A request leaving its queueing delay. */
  enter(seq: Sequence<R>): void {
    if (this.scheduler.compare) this.insertOrdered(seq, this.scheduler.compare);
    else this.items.push(seq);
  }

  /** A preempted request: first in line again (under fcfs), else at its place in the order. */
  returnPreempted(seq: Sequence<R>): void {
    if (this.scheduler.compare) this.insertOrdered(seq, this.scheduler.compare);
    else this.items.unshift(seq);
  }

  remove(requestId: string): Sequence<R> | undefined {
    const at = this.items.findIndex((s) => s.request.id === requestId);
    return at === -1 ? undefined : this.items.splice(at, 1)[0];
  }

  [Symbol.iterator](): Iterator<Sequence<R>> {
    return this.items[Symbol.iterator]();
  }

  /** After the last item that sorts before or equal to it: the order is total, so ties do not occur. */
  private insertOrdered(seq: Sequence<R>, compare: (a: Sequence, b: Sequence) => number): void {
    let low = 0;
    let high = this.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.items[mid]!, seq) <= 0) low = mid + 1;
      else high = mid;
    }
    this.items.splice(low, 0, seq);
  }
}
