import type { RunRecord } from '@sluice/metrics';
import { escapeHtml } from './html-page.js';
import type { ChaosFaultReport, ChaosSection } from './chaos-section.js';
import { tokensPerSecond, ttftPercentilesPerSecond } from './chaos-series.js';
import type { PlotBand, PlotSpec } from './plots.js';
import { outcomesPerSecond } from './series.js';
import { thinSeries } from './thin.js';

const ms = (v: number | null): string => (v === null ? '—' : `${v.toFixed(0)} ms`);

/** Each fault that fired as a band on the run's time axis (seconds): from its firing to its undoing, or a line. */
export function faultBands(chaos: ChaosSection): PlotBand[] {
  return chaos.faults
    .filter((f) => f.firedAtMs !== null)
    .map((f) => ({ fromX: f.firedAtMs! / 1000, toX: (f.undoneAtMs ?? f.firedAtMs!) / 1000, label: `${f.action} ${f.target}` }));
}

/** The chaos timeline: throughput, TTFT and outcomes per second, each with the fault windows shaded. */
export function chaosPlots(chaos: ChaosSection, records: readonly RunRecord[]): PlotSpec[] {
  const bands = faultBands(chaos);
  const common = { xLabel: 'time (s since start)', kind: 'step' as const, yMin: 0, bands };
  return [
    { ...common, name: 'chaos-throughput', title: 'Throughput under faults', note: 'Output tokens the client received per second (any outcome). Shaded: fault windows.', yLabel: 'tokens per second', series: tokensPerSecond(records) },
    {
      ...common,
      name: 'chaos-ttft',
      title: 'TTFT under faults',
      note: 'TTFT p99 and p50 of the requests arriving in each second that got a first token. Shaded: fault windows.',
      yLabel: 'TTFT (ms)',
      series: ttftPercentilesPerSecond(records),
    },
    { ...common, name: 'chaos-outcomes', title: 'Outcomes under faults', note: 'Requests ending per second, by outcome. Shaded: fault windows.', yLabel: 'requests ending per second', series: outcomesPerSecond(records) },
  ].map((p) => ({ ...p, series: p.series.map((s) => thinSeries(s)) }));
}

function invariantsTable(chaos: ChaosSection): string {
  const rows = chaos.invariants
    .map((i) => `<tr><td class="name">${escapeHtml(i.id)}</td><td class="${i.status}">${i.status === 'pass' ? '✓ pass' : i.status === 'fail' ? '✗ FAIL' : '– skipped'}</td><td class="name">${escapeHtml(i.title)}</td><td class="details">${i.details.map(escapeHtml).join('<br>')}</td></tr>`)
    .join('\n');
  return `<div class="table-wrap"><table class="summary" id="chaos-invariants"><thead><tr><th class="name">invariant</th><th>result</th><th class="name">asserts</th><th class="name">details</th></tr></thead><tbody>
${rows}
</tbody></table></div>`;
}

function faultRow(f: ChaosFaultReport): string {
  const at = (v: number | null) => (v === null ? '—' : `${(v / 1000).toFixed(2)} s`);
  const recover = f.recoverMs !== null ? ms(f.recoverMs) : escapeHtml(f.recovery);
  const detail = f.error === null ? escapeHtml(f.detail) : `<span class="bad">${escapeHtml(f.error)}</span>`;
  return (
    `<tr><td class="name">${escapeHtml(f.action)}</td><td class="name">${escapeHtml(f.target)}</td><td>${at(f.plannedStartMs)}</td><td>${at(f.firedAtMs)}</td><td>${at(f.undoneAtMs)}</td>` +
    `<td>${ms(f.detectMs)}${f.detectedBy ? `<br><small>${escapeHtml(f.detectedBy)}</small>` : ''}</td><td>${recover}</td><td>${ms(f.baselineTtftP99Ms)}</td><td class="details">${detail}</td></tr>`
  );
}

/** The chaos section of report.html: verdict, invariants, faults with their costs, the timeline plots. */
export function chaosSectionHtml(chaos: ChaosSection, plots: readonly PlotSpec[]): string {
  const migrations = Object.entries(chaos.migrations.byReason)
    .map(([reason, n]) => `${escapeHtml(reason)} ${n}`)
    .join(', ');
  const restarted = chaos.processesAfter
    .filter((p) => p.restarts > 0)
    .map((p) => `${escapeHtml(p.name)} ×${p.restarts}`)
    .join(', ');
  const figures = plots
    .map((p) => `<figure><figcaption><b>${escapeHtml(p.title)}</b><br>${escapeHtml(p.note)}</figcaption><svg class="plot" data-plot="${escapeHtml(p.name)}" role="img" aria-label="${escapeHtml(p.title)}"></svg></figure>`)
    .join('\n');
  return `<h2 id="chaos">Chaos: ${escapeHtml(chaos.scenario.name)}</h2>
<p>${escapeHtml(chaos.scenario.description)}</p>
<dl class="meta">
<dt>Scenario</dt><dd>${escapeHtml(chaos.scenario.file)}${chaos.scenario.scale === 1 ? '' : ` (time axis × ${chaos.scenario.scale})`} on a ${chaos.target} cluster</dd>
<dt>Verdict</dt><dd id="chaos-verdict">${chaos.passed ? '<span class="ok">every invariant held</span>' : '<span class="bad">an invariant FAILED</span>'}</dd>
<dt>Migrations</dt><dd>${chaos.migrations.total}${migrations ? ` (${migrations})` : ''}</dd>
<dt>Restarted</dt><dd>${restarted || 'none'}</dd>
</dl>
<h3>Invariants</h3>
${invariantsTable(chaos)}
<h3>Faults</h3>
<p>Detect: from the fault's start to the first effect a client could see (a failed request, a migration counted by the gateway, a first token later than 1.5 × the pre-fault TTFT p99, or a stream silent that long). Recover: from the fault's end (its start for a kill or a fault never undone) to the first 1 s window of arrivals with no failure and TTFT p99 within 20% of the pre-fault p99.</p>
<div class="table-wrap"><table class="summary" id="chaos-faults"><thead><tr><th class="name">fault</th><th class="name">target</th><th>planned</th><th>fired</th><th>undone</th><th>detect</th><th>recover</th><th>pre-fault p99</th><th class="name">what was done</th></tr></thead><tbody>
${chaos.faults.map(faultRow).join('\n')}
</tbody></table></div>
<h3>Timeline</h3>
${figures}`;
}
