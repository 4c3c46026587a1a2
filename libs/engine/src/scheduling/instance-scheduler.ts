import type { Sequence } from '../sequence.js';

/** The order of an instance's wait queue, chosen by name (docs/behaviour.md §1, "Scheduling within an instance"). */
export const INSTANCE_SCHEDULER_NAMES = ['fcfs', 'priority-fcfs', 'sjf'] as const;
export type InstanceSchedulerName = (typeof INSTANCE_SCHEDULER_NAMES)[number];

export interface InstanceScheduler {
  readonly name: InstanceSchedulerName;
  /**
   * Wait-queue order (negative: `a` first), or undefined for plain arrival order, where a
   * preempted request goes back to the very front (vLLM's `waiting.prepend`).
   */
  readonly compare: ((a: Sequence, b: Sequence) => number) | undefined;
  /** The running request to preempt when KV blocks run out. */
  victim<S extends Sequence>(running: readonly S[]): S | undefined;
}

export class UnknownSchedulerError extends Error {
  override readonly name = 'UnknownSchedulerError';
  constructor(requested: string) {
    super(`unknown instance scheduler "${requested}"; allowed: ${INSTANCE_SCHEDULER_NAMES.join(', ')}`);
  }
}

/** Code-unit order, not locale order: the same on every machine. */
const byId = (a: Sequence, b: Sequence): number => (a.request.id < b.request.id ? -1 : a.request.id > b.request.id ? 1 : 0);
const byArrival = (a: Sequence, b: Sequence): number => a.arrivalUs - b.arrivalUs;

/** Higher priority first, then earlier arrival, then id (BLIS's priority-fcfs). */
const priorityFirst = (a: Sequence, b: Sequence): number => b.request.priority - a.request.priority || byArrival(a, b) || byId(a, b);
/** Shortest prompt first, then earlier arrival, then id (BLIS's sjf). */
const shortestFirst = (a: Sequence, b: Sequence): number => a.request.inputTokens - b.request.inputTokens || byArrival(a, b) || byId(a, b);

/** vLLM's default: the request at the tail of the running batch (the one admitted last). */
const tailVictim = <S extends Sequence>(running: readonly S[]): S | undefined => running.at(-1);

/** vLLM's priority policy: the lowest-priority, latest-arriving running request, wherever it sits. */
const lowestPriorityVictim = <S extends Sequence>(running: readonly S[]): S | undefined => {
  let victim: S | undefined;
  for (const seq of running) if (!victim || priorityFirst(seq, victim) > 0) victim = seq;
  return victim;
};

export function createInstanceScheduler(name: string): InstanceScheduler {
  switch (name) {
    case 'fcfs':
      return { name, compare: undefined, victim: tailVictim };
    case 'priority-fcfs':
      return { name, compare: priorityFirst, victim: lowestPriorityVictim };
    // sjf is not a priority scheduler: docs/behaviour.md gives the priority victim rule to priority
    // schedulers only, so sjf preempts the tail like fcfs.
    case 'sjf':
      return { name, compare: shortestFirst, victim: tailVictim };
    default:
      throw new UnknownSchedulerError(name);
  }
}
