import type { Sequence } from '../sequence.js';
import type { InstanceScheduler } from './instance-scheduler.js';

/**
 * The requests waiting for the running batch, head first. Under fcfs it is a plain list (new
 * requests at the back, preempted ones at the front); under an ordering scheduler every request
 * is placed by the scheduler's order, which is what BLIS gets by re-sorting the queue each step.
 */
export class WaitQueue implements Iterable<Sequence> {
  private readonly items: Sequence[] = [];

  constructor(private readonly scheduler: InstanceScheduler) {}

  get length(): number {
    return this.items.length;
  }

  peek(): Sequence | undefined {
    return this.items[0];
  }

  shift(): Sequence | undefined {
    return this.items.shift();
  }

  /** A request leaving its queueing delay. */
  enter(seq: Sequence): void {
    if (this.scheduler.compare) this.insertOrdered(seq, this.scheduler.compare);
    else this.items.push(seq);
  }

  /** A preempted request: first in line again (under fcfs), else at its place in the order. */
  returnPreempted(seq: Sequence): void {
    if (this.scheduler.compare) this.insertOrdered(seq, this.scheduler.compare);
    else this.items.unshift(seq);
  }

  remove(requestId: string): Sequence | undefined {
    const at = this.items.findIndex((s) => s.request.id === requestId);
    return at === -1 ? undefined : this.items.splice(at, 1)[0];
  }

  [Symbol.iterator](): Iterator<Sequence> {
    return this.items[Symbol.iterator]();
  }

  /** After the last item that sorts before or equal to it: the order is total, so ties do not occur. */
  private insertOrdered(seq: Sequence, compare: (a: Sequence, b: Sequence) => number): void {
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
