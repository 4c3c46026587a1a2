import { z } from 'zod';

/**
 * Microseconds: the one time unit of the pure cores (the engine, the policies, the stage cores,
 * the twin). The type is branded, so a plain number or a millisecond value cannot be passed where
 * a core expects µs without a named conversion. Arithmetic on two `Micros` gives a plain number
 * again (TypeScript drops the brand); name the result with `micros()` where it is a time.
 *
 * Where µs appear on the wire (a request's arrival and deadline, the time of a worker signal)
 * they are epoch microseconds, a safe integer until the year 2255. Milliseconds stay where people
 * read them: config keys (`…Ms`, durations like `60s`), HTTP headers, stage timings reported to
 * clients, run reports. The adapters (the services, the twin, config resolution) convert.
 */
export const MicrosSchema = z.number().brand<'µs'>();
export type Micros = z.infer<typeof MicrosSchema>;

/** Names a number as µs (a literal, or the result of arithmetic on µs). */
export function micros(value: number): Micros {
  return value as Micros;
}

export const MICROS_PER_MILLI = 1_000;

/** ms → µs, at an adapter (config, a header, a wall clock in ms). */
export function microsFromMillis(ms: number): Micros {
  return (ms * MICROS_PER_MILLI) as Micros;
}

/** µs → ms, at an adapter (a frame or a report for people, a metric, a span attribute). */
export function millisFromMicros(us: Micros): number {
  return us / MICROS_PER_MILLI;
}

/** µs → seconds (Prometheus histograms observe seconds). */
export function secondsFromMicros(us: Micros): number {
  return us / 1e6;
}

/**
 * A time a sender stamped on what it told us, as the receiver may rely on it: never later than
 * the receiver's own now. A sender's clock that runs ahead, or a forged date, must not keep a
 * report fresh or an instance alive past one timeout of silence; from here on it ages as if sent
 * now. The bus fuzz found one event dated in the year 3111 keeping a made-up instance registered,
 * and its report of a long queue fresh, for good (docs/behaviour.md, "Signal freshness").
 */
export function heardAt(sentAtUs: Micros, nowUs: Micros): Micros {
  return sentAtUs > nowUs ? nowUs : sentAtUs;
}
