import { micros, type DecisionTraceLine } from '@sluice/contracts';
import { decisionTraceLine } from '@sluice/stages';
import type { TwinObserver } from './observer.js';

/**
 * An observer that turns each routing decision into a decision-trace line (the line the live
 * router writes, from the same function) and hands it on at once, in decision order: the caller
 * streams it to a file, so a run of millions of requests holds none of them. `k` is
 * `router.counterfactualK`, as live.
 */
export function decisionTraceObserver(k: number, write: (line: DecisionTraceLine) => void): TwinObserver {
  return {
    routingDecided: (request, policy, decision, view, atUs, pd) => write(decisionTraceLine(request, policy, decision, view, k, micros(atUs), pd)),
  };
}
