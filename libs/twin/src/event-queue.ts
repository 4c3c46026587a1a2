import { Heap } from '@sluice/policies';

/**
 * Event kinds in the order they run at equal times (BLIS's rule): cluster events first
 * (arrival, admission, flow control, routing), then instance events, then observers.
 */
export const EVENT_PRIORITY = {
  arrive: 0,
  admit: 1,
  flow: 2,
  ttl: 3,
  route: 4,
  workerArrive: 5,
  stepEnd: 6,
  workerReady: 7,
  done: 8,
  snapshot: 9,
  refresh: 10,
} as const;
export type EventKind = keyof typeof EVENT_PRIORITY;

const PERIODIC: ReadonlySet<EventKind> = new Set(['snapshot', 'refresh']);

export interface SimEvent {
  readonly atUs: number;
  readonly kind: EventKind;
  readonly seq: number;
  readonly run: () => void;
}

/** The twin's agenda: ordered by (time, priority, sequence), so every run is the same run. */
export class EventQueue {
  private readonly heap = new Heap<SimEvent>(
    (a, b) => a.atUs - b.atUs || EVENT_PRIORITY[a.kind] - EVENT_PRIORITY[b.kind] || a.seq - b.seq,
  );
  private seq = 0;
  /** Events pending other than the periodic ones (snapshots, refreshes), which never end a run. */
  private work = 0;
  nowUs = 0;

  at(atUs: number, kind: EventKind, run: () => void): void {
    if (!PERIODIC.has(kind)) this.work++;
    this.heap.push({ atUs: Math.max(atUs, this.nowUs), kind, seq: this.seq++, run });
  }

  /** True while something other than periodic reporting is on the agenda. */
  get hasWork(): boolean {
    return this.work > 0;
  }

  get size(): number {
    return this.heap.size;
  }

  /** Runs events in order until none is left; returns how many ran. */
  drain(): number {
    let ran = 0;
    for (let event = this.heap.pop(); event; event = this.heap.pop()) {
      this.nowUs = event.atUs;
      if (!PERIODIC.has(event.kind)) this.work--;
      event.run();
      ran++;
    }
    return ran;
  }
}
