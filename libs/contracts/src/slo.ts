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
