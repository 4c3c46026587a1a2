import { Heap } from '@sluice/collections';
import type { Micros } from '@sluice/contracts';
import type { WakeUps } from '../wake-ups.js';

/** One request's timer: due at `atUs` for attempt `attempt`. */
export interface DueTimer {
  readonly atUs: Micros;
  readonly requestId: string;
  readonly attempt: number;
  readonly seq: number;
}

/**
 * Per-request timers of a core, by kind, on one wake-up per kind: the driver is asked to wake the
 * core at the earliest timer of a kind, so a gateway with thousands of open requests holds one
 * real timer per kind (a service) or one event per kind on the agenda (the twin). A timer is never
 * cancelled: the core checks, when it comes due, whether the request still wants it. Timers of
 * requests that ended are dropped once they outnumber the open requests (`prune`), so they cannot
 * pile up for a request timeout's length under load.
 */
export class RequestTimers<K extends string> {
  private readonly heaps = new Map<K, Heap<DueTimer>>();
  /** The wake-up asked for each kind: a wake-up of another time is stale and ignored (the twin runs them all). */
  private readonly armed = new Map<K, Micros>();
  private seq = 0;
  private count = 0;

  constructor(private readonly wakeUps: WakeUps<K>) {}

  /** Timers held, live or not. */
  get size(): number {
    return this.count;
  }

  add(kind: K, requestId: string, attempt: number, atUs: Micros): void {
    this.heapOf(kind).push({ atUs, requestId, attempt, seq: this.seq++ });
    this.count++;
    const armed = this.armed.get(kind);
    if (armed === undefined || atUs < armed) this.arm(kind, atUs);
  }

  /**
   * The timers of `kind` due by `nowUs`, earliest first, when `atUs` is the wake-up this asked for;
   * none for a stale one. The next wake-up of the kind is asked for before returning.
   */
  due(kind: K, atUs: Micros, nowUs: Micros): DueTimer[] {
    if (this.armed.get(kind) !== atUs) return [];
    this.armed.delete(kind);
    const heap = this.heapOf(kind);
    const due: DueTimer[] = [];
    for (let next = heap.peek(); next !== undefined && next.atUs <= nowUs; next = heap.peek()) {
      due.push(heap.pop()!);
      this.count--;
    }
    const next = heap.peek();
    if (next !== undefined) this.arm(kind, next.atUs);
    return due;
  }

  /** Keeps only the timers `live` says are still wanted. */
  prune(live: (kind: K, timer: DueTimer) => boolean): void {
    this.count = 0;
    for (const [kind, heap] of this.heaps) {
      const kept = new Heap<DueTimer>(earlier);
      for (let timer = heap.pop(); timer !== undefined; timer = heap.pop()) {
        if (live(kind, timer)) kept.push(timer);
      }
      this.heaps.set(kind, kept);
      this.count += kept.size;
    }
  }

  /** No more wake-ups (shutdown): every timer goes. */
  clear(): void {
    this.heaps.clear();
    this.armed.clear();
    this.count = 0;
  }

  private arm(kind: K, atUs: Micros): void {
    this.armed.set(kind, atUs);
    this.wakeUps.wakeAt(kind, atUs);
  }

  private heapOf(kind: K): Heap<DueTimer> {
    let heap = this.heaps.get(kind);
    if (heap === undefined) {
      heap = new Heap<DueTimer>(earlier);
      this.heaps.set(kind, heap);
    }
    return heap;
  }
}

const earlier = (a: DueTimer, b: DueTimer): number => a.atUs - b.atUs || a.seq - b.seq;
