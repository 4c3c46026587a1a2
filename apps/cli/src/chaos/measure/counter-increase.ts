/**
 * How much a counter rose over a series of readings, as Prometheus's `increase` reads one: a
 * reading below the one before means the process started again from 0, so everything it shows
 * is new. Readings of a process started again lose at most what it counted since the last poll.
 */
export function counterIncrease(readings: readonly number[]): number {
  let total = 0;
  for (let i = 1; i < readings.length; i++) {
    const [a, b] = [readings[i - 1]!, readings[i]!];
    total += b >= a ? b - a : b;
  }
  return total;
}

/** counterIncrease per label value (e.g. migrations by reason); a value absent from a reading is 0 there. */
export function increaseBy(readings: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const keys = new Set(readings.flatMap((r) => Object.keys(r)));
  const out: Record<string, number> = {};
  for (const key of keys) {
    const increase = counterIncrease(readings.map((r) => r[key] ?? 0));
    if (increase > 0) out[key] = increase;
  }
  return out;
}
