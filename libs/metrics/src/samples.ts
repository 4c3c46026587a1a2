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

/** Every per-token gap of every request, pooled (a long request weighs more than a short one). */
export function itlSamples(records: readonly RequestRecord[]): number[] {
  return records.flatMap(requestItls);
}

/** E2E latency (endMs − arrivalMs) of completed requests only. */
export function e2eSamples(records: readonly RequestRecord[]): number[] {
  const out: number[] = [];
  for (const r of records) if (r.outcome === 'completed' && r.endMs !== undefined) out.push(r.endMs - r.arrivalMs);
  return out;
}
