import { micros, type Micros } from '@sluice/contracts';

/**
 * The live services' clock: epoch µs, what every pure core and every time on the wire is in.
 * `performance.timeOrigin + performance.now()` rather than `Date.now()`: µs resolution, and it
 * never steps back within a process (an NTP adjustment moves Date.now(), not this).
 */
export function epochMicros(): Micros {
  return micros(Math.round((performance.timeOrigin + performance.now()) * 1_000));
}
