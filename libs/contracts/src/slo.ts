import { z } from 'zod';

/** SLO classes and the priority each maps to (docs/behaviour.md §5). Negative priority = sheddable. */
export const SLO_CLASS_PRIORITY = {
  critical: 4,
  standard: 3,
  batch: -1,
  sheddable: -2,
  background: -3,
} as const;

export const SloClassSchema = z.enum(['critical', 'standard', 'batch', 'sheddable', 'background']);
export type SloClass = z.infer<typeof SloClassSchema>;
export const DEFAULT_SLO_CLASS: SloClass = 'standard';

export function priorityOf(sloClass: SloClass): number {
  return SLO_CLASS_PRIORITY[sloClass];
}

/**
 * A request's latency targets, in ms, as a workload gives them (a client's `slo`, its class's
 * `slo_targets`, a trace's `slo_target_us`/`goodput_slo_targets`) and as the report judges them
 * (docs/metrics.md, goodput). Each is optional: an absent target is not judged. `tpotMs` is the
 * request's mean gap between output tokens after the first (vLLM's TPOT; what BLIS's goodput
 * calls the request's ITL). Only `ttftMs` travels to the gateway (`x-slo-ttft-ms`).
 */
export interface SloTargets {
  readonly ttftMs?: number;
  readonly tpotMs?: number;
  readonly e2eMs?: number;
}
