import type { RunReport } from '@sluice/metrics';
import type { ChaosSection } from './chaos-section.js';

/** What compareChaos reads of a report.json: a live or a twin chaos section's migrations. */
export interface ChaosMigrations {
  readonly chaos?: { readonly migrations: ChaosSection['migrations'] } | undefined;
  readonly twinChaos?: { readonly migrations: ChaosSection['migrations'] } | undefined;
}

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

/**
 * Rows for chaos runs, live (`chaos`) or in the twin (`twinChaos`): the re-submissions in all and by
 * reason, so a live scenario and its twin read side by side. None when no report is a chaos run.
 */
export function compareChaos(files: readonly ChaosMigrations[]): ComparedRow[] {
  const migrations = files.map((f) => (f.chaos ?? f.twinChaos)?.migrations);
  if (migrations.every((m) => m === undefined)) return [];
  const reasons = [...new Set(migrations.flatMap((m) => Object.keys(m?.byReason ?? {})))].sort();
  const row = (metric: string, read: (m: NonNullable<(typeof migrations)[number]>) => number): ComparedRow => {
    const values = migrations.map((m) => (m === undefined ? null : read(m)));
    const base = values[0] ?? null;
    return { metric, values, deltasPct: values.map((v) => (v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100)) };
  };
  return [row('migrations', (m) => m.total), ...reasons.map((reason) => row(`  ${reason}`, (m) => m.byReason[reason] ?? 0))];
}

/** The comparison as an aligned table: the first report, then each other with its delta. */
export function comparisonTable(names: readonly string[], rows: readonly ComparedRow[]): string {
  const fmt = (v: number | null) => (v === null ? '–' : Number.isInteger(v) ? `${v}` : v.toFixed(2));
  const delta = (d: number | null) => (d === null ? '' : ` (${d >= 0 ? '+' : ''}${d.toFixed(1)}%)`);
  const table = [['', ...names], ...rows.map((r) => [r.metric, ...r.values.map((v, i) => `${fmt(v)}${i === 0 ? '' : delta(r.deltasPct[i] ?? null)}`)])];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  return table.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   ')).join('\n');
}
