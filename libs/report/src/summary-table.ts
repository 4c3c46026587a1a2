import type { LatencyStats, RunReport, Summary } from '@sluice/metrics';

const ms = (v: number | null) => (v === null ? '–' : v.toFixed(1));

function pair(stats: LatencyStats): string {
  return `${ms(stats.p50)} / ${ms(stats.p99)}`;
}

/** The run's results as a terminal table: one row overall, then per SLO class and per tenant. */
export function summaryTable(report: RunReport): string {
  const header = ['', 'requests', 'completed', 'TTFT p50/p99 ms', 'ITL p50/p99 ms', 'TPOT p50/p99 ms', 'E2E p50/p99 ms', 'tok/s', 'goodput req/s', 'SLO met'];
  const row = (name: string, s: Summary) => [
    name,
    `${s.requests}`,
    `${s.completed}`,
    pair(s.ttft),
    pair(s.itl),
    pair(s.tpot),
    pair(s.e2e),
    s.throughput.outputTokensPerSec.toFixed(0),
    s.goodput.requestsPerSec.toFixed(2),
    s.goodput.attainment === null ? '–' : `${(s.goodput.attainment * 100).toFixed(1)}%`,
  ];
  const rows = [
    header,
    row('all', report.overall),
    ...Object.entries(report.bySloClass).map(([name, s]) => row(`class ${name}`, s)),
    ...Object.entries(report.byFairnessId).map(([name, s]) => row(`tenant ${name}`, s)),
  ];
  const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  const { books, check } = report.conservation;
  const byReason = (m: Record<string, number>) => Object.entries(m).map(([r, n]) => `${r} ${n}`).join(', ');
  return [
    ...lines,
    '',
    `throughput      ${report.throughput.requestsPerSec.toFixed(2)} req/s, ${report.throughput.outputTokensPerSec.toFixed(0)} output tok/s`,
    `Jain's index    ${report.jain.index.toFixed(3)} over tenants' output tokens`,
    `outcomes        completed ${books.completed}, rejected ${books.rejected.total}${books.rejected.total ? ` (${byReason(books.rejected.byReason)})` : ''}, dropped ${books.dropped.total}${books.dropped.total ? ` (${byReason(books.dropped.byReason)})` : ''}, failed ${books.failed.total}${books.failed.total ? ` (${byReason(books.failed.byReason)})` : ''}`,
    `books           ${check.balanced ? 'balanced' : `NOT balanced: ${check.problems.join('; ')}`} (${check.requests} requests)`,
  ].join('\n');
}
