import { GoRand, fnv1a64 } from '@sluice/collections';
import type { TieBreak } from './routing-policy.js';

/**
 * BLIS's tie-break (docs/behaviour.md §1, BLIS parity mode): `tied[rng.Intn(len(tied))]` with
 * Go's math/rand seeded by `seed XOR fnv1a64("router")` (as an int64), so least-loaded and
 * weighted pick the same instance as BLIS whenever candidates tie. One source per router: every
 * tie draws the next value of the stream, as BLIS's single router does.
 */
export function blisTieBreak(seed: number): TieBreak {
  const rng = new GoRand(BigInt.asIntN(64, BigInt(seed) ^ fnv1a64('router')));
  return (ties) => rng.intn(ties);
}
