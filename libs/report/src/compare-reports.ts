import type { RunReport, Summary } from '@sluice/metrics';
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

const latency = (stat: 'ttft' | 'itl' | 'tpot' | 'e2e', field: 'min' | 'mean' | 'p50' | 'p90' | 'p99' | 'max'): Metric => ({
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
  latency('ttft', 'max'),
  latency('itl', 'p50'),
  latency('itl', 'p99'),
  latency('tpot', 'p50'),
  latency('tpot', 'p99'),
  latency('e2e', 'p50'),
  latency('e2e', 'p99'),
  latency('e2e', 'max'),
  { name: 'throughput req/s', read: (r) => r.throughput.requestsPerSec, lowerIsBetter: false },
  { name: 'throughput tok/s', read: (r) => r.throughput.outputTokensPerSec, lowerIsBetter: false },
  { name: 'goodput req/s', read: (r) => r.goodput.requestsPerSec, lowerIsBetter: false },
  { name: 'SLO attainment %', read: (r) => percent(r.goodput.attainment), lowerIsBetter: false },
  { name: "Jain's index", read: (r) => r.jain.index, lowerIsBetter: false },
];

function percent(share: number | null | undefined): number | null {
  return share === null || share === undefined ? null : share * 100;
}

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
 * SLO attainment and goodput per SLO class and per tenant, for the groups that had a target in
 * any report (a group without targets has no attainment to compare). A group absent from a
 * report reads as missing there.
 */
export function compareGoodputByGroup(reports: readonly RunReport[]): ComparedRow[] {
  const rows: ComparedRow[] = [];
  const groupsOf = (title: string, pick: (r: RunReport) => Record<string, Summary>) => {
    const names = [...new Set(reports.flatMap((r) => Object.keys(pick(r))))].sort();
    for (const name of names) {
      const summaries = reports.map((r) => pick(r)[name]);
      if (!summaries.some((s) => (s?.goodput.targeted ?? 0) > 0)) continue;
      rows.push(rowOf(`${title} ${name} attainment %`, summaries.map((s) => percent(s?.goodput.attainment))));
      rows.push(rowOf(`${title} ${name} goodput req/s`, summaries.map((s) => s?.goodput.requestsPerSec ?? null)));
    }
  };
  groupsOf('class', (r) => r.bySloClass);
  groupsOf('tenant', (r) => r.byFairnessId);
  return rows;
}

function rowOf(metric: string, values: readonly (number | null)[]): ComparedRow {
  const base = values[0] ?? null;
  return { metric, values, deltasPct: values.map((v) => (v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100)) };
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
