/**
 * Event kinds in the order they run at equal times (BLIS's rule): a chaos scenario's faults first
 * (a fault at t acts on everything else at t), then cluster events (arrival, admission, flow
 * control, routing), then instance events, then what reaches the gateway (hand-backs, handoffs
 * never acked, deadlines), then observers and the stages' housekeeping (heartbeats, sweeps).
 */
export const EVENT_PRIORITY = {
  fault: 0,
  arrive: 1,
  admit: 2,
  flow: 3,
  ttl: 4,
  route: 5,
  workerArrive: 6,
  stepEnd: 7,
  workerReady: 8,
  done: 9,
  ackTimeout: 10,
  gateway: 11,
  deadline: 12,
  snapshot: 13,
  refresh: 14,
  heartbeat: 15,
  sweep: 16,
  // The autoscaler's: an instance's model load ending, a scaling decision (after every observer
  // at the same time has updated what it reads), and its set-instances reaching a worker.
  startup: 17,
  decide: 18,
  scale: 19,
} as const;
export type EventKind = keyof typeof EVENT_PRIORITY;

/** Kinds that recur while the run lasts and never end it by themselves. */
const PERIODIC: ReadonlySet<EventKind> = new Set(['snapshot', 'refresh', 'heartbeat', 'sweep', 'decide']);

export function isPeriodic(kind: EventKind): boolean {
  return PERIODIC.has(kind);
}

export interface SimEvent {
  readonly atUs: number;
  readonly kind: EventKind;
  readonly seq: number;
  readonly run: () => void;
}

/** An event with its ordering key resolved once, when it is scheduled. */
class Scheduled implements SimEvent {
  constructor(
    readonly atUs: number,
    readonly kind: EventKind,
    readonly priority: number,
    readonly periodic: boolean,
    readonly seq: number,
    readonly run: () => void,
  ) {}
}

/** (time, priority, sequence): a before b. */
const before = (a: Scheduled, b: Scheduled): boolean => (a.atUs !== b.atUs ? a.atUs < b.atUs : a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq);

/**
 * The twin's agenda: ordered by (time, priority, sequence), so every run is the same run. A binary
 * min-heap of its own (not the policies' generic Heap): the key is compared inline and the event
 * kind's priority and periodicity are looked up once per event, not once per comparison.
 */
export class EventQueue {
  private readonly heap: Scheduled[] = [];
  private seq = 0;
  /** Events pending other than the periodic ones (snapshots, refreshes), which never end a run. */
  private work = 0;
  nowUs = 0;

  at(atUs: number, kind: EventKind, run: () => void): void {
    const periodic = PERIODIC.has(kind);
    if (!periodic) this.work++;
    const event = new Scheduled(Math.max(atUs, this.nowUs), kind, EVENT_PRIORITY[kind], periodic, this.seq++, run);
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = heap[parent]!;
      if (!before(event, above)) break;
      heap[i] = above;
      i = parent;
    }
    heap[i] = event;
  }

  /** True while something other than periodic reporting is on the agenda. */
  get hasWork(): boolean {
    return this.work > 0;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Runs events in order until none is left; returns how many ran. */
  drain(): number {
    let ran = 0;
    for (let event = this.pop(); event; event = this.pop()) {
      this.nowUs = event.atUs;
      if (!event.periodic) this.work--;
      event.run();
      ran++;
    }
    return ran;
  }

  private pop(): Scheduled | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right]!, heap[left]!) ? right : left;
      const smaller = heap[child]!;
      if (!before(smaller, last)) break;
      heap[i] = smaller;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
