import type { FlowQueues } from './flow-queues.js';
import { isSaturated } from './ports.js';
import type { QueuedRequest } from './queued-request.js';

export interface DispatchCycleResult {
  readonly dispatched: number;
  /** Why the cycle stopped: nothing left to send, or the pool is saturated (head-of-line blocking). */
  readonly stoppedBy: 'empty' | 'saturated';
  /** The detector's reading when the cycle stopped. */
  readonly saturation: number;
}

/**
 * One dispatch cycle (docs/behaviour.md §3): take the pick of the three tiers and ask the detector
 * before releasing it. Saturated: stop, and the head waits (no lower band or other flow jumps
 * ahead). Not saturated: release it and go on, so no request is held while there is capacity
 * (work-conserving). `dispatch` must update what the detector reads (in-flight accounting)
 * before it returns, so the next reading sees the request just sent.
 */
export function runDispatchCycle<T>(
  queues: FlowQueues<T>,
  saturation: () => number,
  dispatch: (item: QueuedRequest<T>, saturation: number) => void,
): DispatchCycleResult {
  let dispatched = 0;
  for (;;) {
    const next = queues.peek();
    if (!next) return { dispatched, stoppedBy: 'empty', saturation: saturation() };
    const reading = saturation();
    if (isSaturated(reading)) return { dispatched, stoppedBy: 'saturated', saturation: reading };
    queues.take(next);
    dispatch(next, reading);
    dispatched++;
  }
}

