import { isSheddable } from './flow-key.js';
import { isSaturated } from './ports.js';

/**
 * Flow control disabled (the Endpoint Picker's legacy mode, docs/behaviour.md §3): nothing is queued;
 * while the pool is saturated a sheddable (negative-priority) request is refused at once with
 * 429, and every other request passes.
 */
export function legacyModeSheds(priority: number, saturation: number): boolean {
  return isSheddable(priority) && isSaturated(saturation);
}
