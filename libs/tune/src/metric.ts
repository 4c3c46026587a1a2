import type { MetricRef } from './space.schema.js';

/*
 * A metric is a path into the run report's summary (libs/metrics' RunReport, report.json's
 * `summary`), so whatever the summary gains (goodput, attainment, fitness) can be optimised
 * without a change here. With sloClass or tenant the path is read in that group's summary
 * (`bySloClass.critical.ttft.p99`). Without either, a path not found at the top is tried under
 * `overall`, so `ttft.p99` means the whole run's p99.
 */

export type MetricReading =
  | { readonly found: true; readonly at: string; readonly value: number | null }
  | { readonly found: false; readonly problem: string };

/** `ttft.p99`, or `ttft.p99 of critical` / `of tenant acme`. */
export function metricLabel(ref: MetricRef): string {
  if (ref.sloClass !== undefined) return `${ref.path} (${ref.sloClass})`;
  if (ref.tenant !== undefined) return `${ref.path} (tenant ${ref.tenant})`;
  return ref.path;
}

function candidatesOf(ref: MetricRef): string[][] {
  const path = ref.path.split('.');
  if (ref.sloClass !== undefined) return [['bySloClass', ref.sloClass, ...path]];
  if (ref.tenant !== undefined) return [['byFairnessId', ref.tenant, ...path]];
  return [path, ['overall', ...path]];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The metric's value in a summary: a number, null (no samples), or why it is not there. */
export function readMetric(summary: unknown, ref: MetricRef): MetricReading {
  let problem = '';
  for (const keys of candidatesOf(ref)) {
    let node: unknown = summary;
    let depth = 0;
    for (; depth < keys.length && isRecord(node) && keys[depth]! in node; depth++) node = node[keys[depth]!];
    const at = keys.join('.');
    if (depth === keys.length) {
      if (typeof node === 'number' || node === null) return { found: true, at, value: node };
      problem = isRecord(node) ? `${at} is a group, not a number; one of: ${Object.keys(node).join(', ')}` : `${at} is not a number`;
      return { found: false, problem };
    }
    if (problem === '') {
      const where = keys.slice(0, depth).join('.') || 'the summary';
      problem = isRecord(node) ? `no "${keys[depth]}" in ${where}; it has: ${Object.keys(node).join(', ')}` : `${where} has no "${keys[depth]}"`;
    }
  }
  return { found: false, problem };
}
