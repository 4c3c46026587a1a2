import type { RunReport } from '@sluice/metrics';

/** One compared metric: how to read it from a report, and whether lower is better. */
interface Metric {
  readonly name: string;
  readonly read: (r: RunReport) => number | null;
  readonly lowerIsBetter: boolean;
}

const latency = (stat: 'ttft' | 'itl' | 'e2e', field: 'mean' | 'p50' | 'p90' | 'p99'): Metric => ({
  name: `${stat.toUpperCase()} ${field} ms`,
  read: (r) => r.overall[stat][field],
  lowerIsBetter: true,
});

export const COMPARED_METRICS: readonly Metric[] = [
  { name: 'requests', read: (r) => r.conservation.books.requests, lowerIsBetter: false },
  { name: 'completed', read: (r) => r.conservation.books.completed, lowerIsBetter: false },
  { name: 'rejected', read: (r) => r.conservation.books.rejected.total, lowerIsBetter: true },
  { name: 'dropped', read: (r) => r.conservation.books.dropped.total, lowerIsBetter: true },
  { name: 'failed', read: (r) => r.conservation.books.failed.total, lowerIsBetter: true },
  latency('ttft', 'mean'),
  latency('ttft', 'p50'),
  latency('ttft', 'p90'),
  latency('ttft', 'p99'),
  latency('itl', 'p50'),
  latency('itl', 'p99'),
  latency('e2e', 'p50'),
  latency('e2e', 'p99'),
  { name: 'throughput req/s', read: (r) => r.throughput.requestsPerSec, lowerIsBetter: false },
  { name: 'throughput tok/s', read: (r) => r.throughput.outputTokensPerSec, lowerIsBetter: false },
  { name: "Jain's index", read: (r) => r.jain.index, lowerIsBetter: false },
];

export interface ComparedRow {
  readonly metric: string;
  readonly values: readonly (number | null)[];
  /** Each report's change against the first, in percent (null where either side is missing or the first is 0). */
  readonly deltasPct: readonly (number | null)[];
}

/** Every compared metric for each report, with its change against the first report. */
export function compareReports(reports: readonly RunReport[]): ComparedRow[] {
  return COMPARED_METRICS.map((m) => {
    const values = reports.map(m.read);
    const base = values[0] ?? null;
    const deltasPct = values.map((v) => (v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100));
    return { metric: m.name, values, deltasPct };
  });
}

/** The comparison as an aligned table: the first report, then each other with its delta. */
export function comparisonTable(names: readonly string[], rows: readonly ComparedRow[]): string {
  const fmt = (v: number | null) => (v === null ? '–' : Number.isInteger(v) ? `${v}` : v.toFixed(2));
  const delta = (d: number | null) => (d === null ? '' : ` (${d >= 0 ? '+' : ''}${d.toFixed(1)}%)`);
  const table = [['', ...names], ...rows.map((r) => [r.metric, ...r.values.map((v, i) => `${fmt(v)}${i === 0 ? '' : delta(r.deltasPct[i] ?? null)}`)])];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  return table.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   ')).join('\n');
}
