import type { RequestRecord } from './types.js';

/** The run's measurement window: first arrival to last completion. */
export interface RunWindow {
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
}

export interface Throughput {
  /** Completed requests per second. */
  readonly requestsPerSec: number;
  /** Output tokens of completed requests per second. */
  readonly outputTokensPerSec: number;
}

/**
 * startMs = min(arrivalMs) over all records; endMs = max(endMs) over completed records;
 * durationMs = endMs − startMs. With no records or no completion the window is empty (duration 0).
 */
export function runWindow(records: readonly RequestRecord[]): RunWindow {
  if (records.length === 0) return { startMs: 0, endMs: 0, durationMs: 0 };
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const r of records) {
    startMs = Math.min(startMs, r.arrivalMs);
    if (r.outcome === 'completed' && r.endMs !== undefined) endMs = Math.max(endMs, r.endMs);
  }
  if (endMs === -Infinity) return { startMs, endMs: startMs, durationMs: 0 };
  return { startMs, endMs, durationMs: Math.max(0, endMs - startMs) };
}

/**
 * requestsPerSec = completed / (durationMs / 1000);
 * outputTokensPerSec = Σ outputTokens(completed) / (durationMs / 1000).
 * Both are 0 when the window is empty (durationMs ≤ 0). The window is passed in so that groups
 * (per class, per tenant) are measured over the whole run's window and their rates add up.
 */
export function throughput(records: readonly RequestRecord[], window: RunWindow): Throughput {
  let completed = 0;
  let tokens = 0;
  for (const r of records) {
    if (r.outcome !== 'completed') continue;
    completed++;
    tokens += r.outputTokens;
  }
  return throughputOf(completed, tokens, window);
}

/** `throughput` of counts already made: completed requests and their output tokens. */
export function throughputOf(completed: number, outputTokens: number, window: RunWindow): Throughput {
  if (window.durationMs <= 0) return { requestsPerSec: 0, outputTokensPerSec: 0 };
  const seconds = window.durationMs / 1000;
  return { requestsPerSec: completed / seconds, outputTokensPerSec: outputTokens / seconds };
}
