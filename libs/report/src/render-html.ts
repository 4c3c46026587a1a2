import type { Goodput, LatencyStats, RunRecord, Summary } from '@sluice/metrics';
import type { RunReportFile } from './run-report-file.js';
import { autoscalerPlots, autoscalerSectionHtml } from './autoscaler-html.js';
import { chaosPlots, chaosSectionHtml } from './chaos-html.js';
import { engineSectionHtml } from './engine-html.js';
import { slowestRequestsHtml } from './slowest-requests.js';
import { buildPlots, type PlotSpec } from './plots.js';
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
<dt>${report.target ? 'Target' : 'Gateway'}</dt><dd>${escapeHtml(report.gateway)}</dd>
${targetRows(report)}<dt>Started</dt><dd>${escapeHtml(report.startedAt)}</dd>
<dt>Requests</dt><dd>${counts}</dd>
<dt>Conservation</dt><dd id="conservation">${conservation}</dd>
${clientLagRow(report)}</dl>`;
}

/** A `--target` run: the model sent, and what the endpoint could not give (left out, not zeroed). */
function targetRows(report: RunReportFile): string {
  const t = report.target;
  if (!t) return '';
  const absent = t.absent.length === 0 ? 'nothing' : `<ul>${t.absent.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul>`;
  return `<dt>Model</dt><dd>${escapeHtml(t.model)} (${t.requestHeaders === 'sluice' ? 'with' : 'without'} sluice’s request headers)</dd>
<dt>Not in this report</dt><dd id="absent">${absent}</dd>
`;
}

/** How late the load client sent, which the latencies (counted from the schedule) include. */
function clientLagRow(report: RunReportFile): string {
  const lag = report.clientLag;
  if (!lag) return '';
  const numbers = `p50 ${ms(lag.p50Ms)} ms, p99 ${ms(lag.p99Ms)} ms, max ${ms(lag.maxMs)} ms behind schedule; latencies count from the scheduled send`;
  return `<dt>Client lag</dt><dd id="client-lag">${lag.warning ? `<span class="bad">${escapeHtml(lag.warning)}</span><br>` : ''}${numbers}</dd>
`;
}

/** What a streamed run's page is drawn from, its report holding no records (StreamedPlots). */
export interface StreamedPage {
  readonly plots: readonly PlotSpec[];
  /** The records the slowest-requests tables list (the slowest by TTFT and by E2E, kept as they passed). */
  readonly slowest: readonly RunRecord[];
}

/**
 * The report as one self-contained HTML document: inline CSS and JS, data embedded as JSON, no
 * network. Its plots and tables are drawn from its records, or from what a streamed run kept.
 */
export function renderReportHtml(report: RunReportFile, streamed?: StreamedPage): string {
  const plots = streamed?.plots ?? buildPlots(report.records);
  const chaos = report.chaos ? chaosPlots(report.chaos, report.records) : [];
  const autoscaler = report.autoscaler ? autoscalerPlots(report.autoscaler, report.records, report.summary.window.endMs) : [];
  const data = { summary: report.summary, plots: [...plots, ...chaos, ...autoscaler] };
  const body = `${header(report)}
${report.chaos ? chaosSectionHtml(report.chaos, chaos) : ''}
${report.autoscaler ? autoscalerSectionHtml(report.autoscaler, plotFigures(autoscaler)) : ''}
<h2>Summary</h2>
${summaryTableHtml(report)}
${report.engine ? engineSectionHtml(report.engine) : ''}
${slowestRequestsHtml(streamed?.slowest ?? report.records, report.config)}
<h2>Plots</h2>
${plotFigures(plots)}`;
  return htmlDocument(`sluice run report — ${report.workload.file}`, body, data);
}
