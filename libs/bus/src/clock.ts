import { micros, type Micros } from '@sluice/contracts';

/**
 * The live services' clock: epoch µs, what every pure core and every time on the wire is in.
 * It is the system's wall clock (`Date.now()`, so ms resolution) because the times it stamps are
 * compared across processes: a snapshot's age is the flow controller's now minus the worker's
 * `atUs`, and the utilization detector counts the dispatches made within that age as not yet in
 * the snapshot. `performance.timeOrigin + performance.now()` has µs resolution but a per-process
 * origin: four processes started together here were 0.43–0.78 ms off `Date.now()`, each its own
 * way, enough to make a fresh snapshot's age negative in another process.
 */
export function epochMicros(): Micros {
  return micros(Date.now() * 1_000);
}
