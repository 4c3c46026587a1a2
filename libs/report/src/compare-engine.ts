import type { ComparedRow } from './compare-reports.js';
import type { EngineSection } from './engine-section.js';

/** What compareEngine reads of a report.json. */
export interface EngineCounters {
  readonly engine?: EngineSection | undefined;
}

/**
 * Rows for the engines' cluster values: preemptions, KV allocation failures, and the cache-hit rate
 * (the unweighted mean of the instances', in percent). A report without the section shows –. None
 * when no report has it. A live run counts the rate in prompt tokens and the twin in KV blocks
 * (EngineSection's `cacheHitRateOf`): the row says which when they differ.
 */
export function compareEngine(files: readonly EngineCounters[]): ComparedRow[] {
  const sections = files.map((f) => f.engine);
  if (sections.every((s) => s === undefined)) return [];
  const row = (metric: string, read: (s: EngineSection) => number | null): ComparedRow => {
    const values = sections.map((s) => (s === undefined ? null : read(s)));
    const base = values[0] ?? null;
    return { metric, values, deltasPct: values.map((v) => (v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100)) };
  };
  const bases = [...new Set(sections.flatMap((s) => (s === undefined ? [] : [s.cacheHitRateOf])))];
  const rate = bases.length > 1 ? `cache-hit rate % (${sections.map((s) => s?.cacheHitRateOf ?? '–').join(' / ')})` : 'cache-hit rate %';
  return [
    row('preemptions', (s) => s.cluster.preemptions),
    row('KV allocation failures', (s) => s.cluster.kvAllocationFailures),
    row(rate, (s) => s.cluster.cacheHitRate * 100),
  ];
}
