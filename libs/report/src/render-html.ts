import type { Goodput, LatencyStats, Summary } from '@sluice/metrics';
import type { RunReportFile } from './run-report-file.js';
import { chaosPlots, chaosSectionHtml } from './chaos-html.js';
import { engineSectionHtml } from './engine-html.js';
import { slowestRequestsHtml } from './slowest-requests.js';
import { buildPlots } from './plots.js';
import { escapeHtml, htmlDocument, plotFigures } from './html-page.js';

export { escapeHtml, jsonForScript } from './html-page.js';

const ms = (v: number | null): string => (v === null ? '—' : v.toFixed(1));
const STATS = ['min', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
const percent = (share: number | null): string => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);
const statCells = (s: LatencyStats): string => STATS.map((k) => `<td>${ms(s[k])}</td>`).join('');

function summaryRow(name: string, s: Summary): string {
  return (
    `<tr><td class="name">${escapeHtml(name)}</td><td>${s.requests}</td><td>${s.completed}</td>` +
    `${statCells(s.ttft)}${statCells(s.itl)}${statCells(s.tpot)}${statCells(s.e2e)}` +
    `<td>${s.throughput.requestsPerSec.toFixed(2)}</td><td>${s.throughput.outputTokensPerSec.toFixed(1)}</td>` +
    `<td>${s.goodput.requestsPerSec.toFixed(2)}</td><td>${percent(s.goodput.attainment)}</td></tr>`
  );
}

function summaryTableHtml(report: RunReportFile): string {
  const { summary } = report;
  const group = (title: string, rows: Record<string, Summary>): string =>
    Object.keys(rows).length === 0 ? '' : `<tr class="group"><td colspan="${5 + 4 * STATS.length + 2}">${title}</td></tr>` + Object.entries(rows).map(([k, s]) => summaryRow(k, s)).join('');
  const statHeads = STATS.map((k) => `<th>${k}</th>`).join('');
  return `<div class="table-wrap"><table class="summary">
<thead>
<tr><th class="name" rowspan="2"></th><th rowspan="2">requests</th><th rowspan="2">completed</th><th colspan="${STATS.length}">TTFT (ms)</th><th colspan="${STATS.length}">ITL (ms)</th><th colspan="${STATS.length}">TPOT (ms)</th><th colspan="${STATS.length}">E2E (ms)</th><th rowspan="2">req/s</th><th rowspan="2">output tok/s</th><th rowspan="2">goodput req/s</th><th rowspan="2">SLO attainment</th></tr>
<tr>${statHeads}${statHeads}${statHeads}${statHeads}</tr>
</thead>
<tbody>
${summaryRow('overall', summary.overall)}
${group('per SLO class', summary.bySloClass)}
${group('per tenant', summary.byFairnessId)}
</tbody>
</table></div>
<p>Jain’s fairness index (output tokens of completed requests per tenant): <b>${summary.jain.index.toFixed(3)}</b>
(${Object.entries(summary.jain.outputTokensByFairnessId)
    .map(([t, n]) => `${escapeHtml(t)}: ${n}`)
    .join(', ')}).
Window: ${(summary.window.durationMs / 1000).toFixed(2)} s.${summary.fitness === null ? '' : ` Fitness: <b>${summary.fitness.toFixed(4)}</b>.`}</p>
${goodputHtml(summary.goodput)}`;
}

/**
 * What goodput counts, in one line under the table, and each target's own attainment: a run
 * without targets says so, since its goodput is then its completed requests per second.
 */
function goodputHtml(g: Goodput): string {
  if (g.targeted === 0) return `<p id="goodput">Goodput: <b>${g.requestsPerSec.toFixed(2)}</b> req/s; no request carried an SLO target, so every completed request counts.</p>`;
  const dims = (['ttft', 'tpot', 'e2e'] as const)
    .filter((d) => g[d].targeted > 0)
    .map((d) => `${d.toUpperCase()} ${percent(g[d].attainment)} of ${g[d].targeted}`)
    .join(', ');
  return `<p id="goodput">Goodput: <b>${g.requestsPerSec.toFixed(2)}</b> req/s (${g.good} requests completed within every target they had). SLO attainment: <b>${percent(g.attainment)}</b> of the ${g.targeted} requests with a target (${dims}).</p>`;
}

function header(report: RunReportFile): string {
  const { books, check } = report.summary.conservation;
  const stages = Object.entries(books.rejected.byStage)
    .map(([s, n]) => `${escapeHtml(s)} ${n}`)
    .join(', ');
  const counts =
    `${books.requests} requests: ${books.completed} completed, ${books.rejected.total} rejected${stages ? ` (${stages})` : ''}, ` +
    `${books.dropped.total} dropped, ${books.failed.total} failed, ${books.inFlight} in flight`;
  const conservation = check.balanced
    ? `<span class="ok">balanced</span> (${check.accounted} of ${check.requests} accounted for)`
    : `<span class="bad">NOT balanced</span>: ${check.problems.map(escapeHtml).join('; ')}`;
  return `<h1>sluice ${report.chaos ? 'chaos' : 'run'} report</h1>
<dl class="meta">
<dt>Workload</dt><dd>${escapeHtml(report.workload.file)}</dd>
<dt>Gateway</dt><dd>${escapeHtml(report.gateway)}</dd>
<dt>Started</dt><dd>${escapeHtml(report.startedAt)}</dd>
<dt>Requests</dt><dd>${counts}</dd>
<dt>Conservation</dt><dd id="conservation">${conservation}</dd>
</dl>`;
}

/** The report as one self-contained HTML document: inline CSS and JS, data embedded as JSON, no network. */
export function renderReportHtml(report: RunReportFile): string {
  const plots = buildPlots(report.records);
  const chaos = report.chaos ? chaosPlots(report.chaos, report.records) : [];
  const data = { summary: report.summary, plots: [...plots, ...chaos] };
  const body = `${header(report)}
${report.chaos ? chaosSectionHtml(report.chaos, chaos) : ''}
<h2>Summary</h2>
${summaryTableHtml(report)}
${report.engine ? engineSectionHtml(report.engine) : ''}
${slowestRequestsHtml(report.records, report.config)}
<h2>Plots</h2>
${plotFigures(plots)}`;
  return htmlDocument(`sluice run report — ${report.workload.file}`, body, data);
}
