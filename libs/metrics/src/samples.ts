import type { RequestRecord } from './types.js';

/** TTFT (firstTokenMs − arrivalMs) of every request that finished prefill, whatever its outcome. */
export function ttftSamples(records: readonly RequestRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) if (r.firstTokenMs !== undefined) out.push(r.firstTokenMs - r.arrivalMs);
  return out;
}

/** One request's inter-token gaps: `itlMs` if given, else the differences of consecutive `tokenTimesMs`. */
export function requestItls(record: RequestRecord): number[] {
  if (record.itlMs !== undefined) return [...record.itlMs];
  const times = record.tokenTimesMs ?? [];
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(times[i]! - times[i - 1]!);
  return gaps;
}

/**
 * Every per-token gap of every request, pooled (a long request weighs more than a short one), in
 * record order. A typed array, counted first and filled in place: a million requests give ~10⁸
 * gaps, which as one array of per-request arrays took gigabytes of the heap.
 */
export function itlSamples(records: readonly RequestRecord[]): Float64Array {
  let count = 0;
  for (const r of records) count += r.itlMs !== undefined ? r.itlMs.length : Math.max(0, (r.tokenTimesMs?.length ?? 0) - 1);
  const gaps = new Float64Array(count);
  let at = 0;
  for (const r of records) {
    if (r.itlMs !== undefined) {
      gaps.set(r.itlMs, at);
      at += r.itlMs.length;
      continue;
    }
    const times = r.tokenTimesMs;
    if (times === undefined) continue;
    for (let i = 1; i < times.length; i++) gaps[at++] = times[i]! - times[i - 1]!;
  }
  return gaps;
}

/** E2E latency (endMs − arrivalMs) of completed requests only. */
export function e2eSamples(records: readonly RequestRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) if (r.outcome === 'completed' && r.endMs !== undefined) out.push(r.endMs - r.arrivalMs);
  return out;
}

/**
 * A request's TPOT in ms: its mean gap between output tokens after the first, (last − first) /
 * (n − 1) as vLLM's benchmark computes it; 0 with fewer than two tokens (no gap to be late), as
 * BLIS's per-request ITL, which divides by max(n − 1, 1) (sim/simulator.go,
 * inference-sim/inference-sim@f90a1e3a6787da17c2cd463dab6fb2660b1b1760).
 */
export function requestTpotMs(record: RequestRecord): number {
  const gaps = record.itlMs;
  if (gaps !== undefined) {
    let sum = 0;
    for (const g of gaps) sum += g;
    return gaps.length === 0 ? 0 : sum / gaps.length;
  }
  const times = record.tokenTimesMs;
  if (times === undefined || times.length < 2) return 0;
  return (times[times.length - 1]! - times[0]!) / (times.length - 1);
}

/** TPOT of every completed request with at least two output tokens (vLLM's benchmark leaves out single-token answers). */
export function tpotSamples(records: readonly RequestRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) {
    if (r.outcome !== 'completed') continue;
    const gaps = r.itlMs !== undefined ? r.itlMs.length : Math.max(0, (r.tokenTimesMs?.length ?? 0) - 1);
    if (gaps > 0) out.push(requestTpotMs(r));
  }
  return out;
}
