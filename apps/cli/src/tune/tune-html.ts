import { escapeHtml, renderPlotsPage, type PlotSpec } from '@sluice/report';
import { formatValue } from './tune-progress.js';
import type { TuneFile } from './tune-file.js';

/** The convergence plot: the best feasible objective after each trial, over every trial's value. */
function convergencePlot(tune: TuneFile): PlotSpec[] {
  const objective = tune.objectives[0]!;
  const byNumber = new Map(tune.trials.map((t) => [t.number, t]));
  const best = tune.bestSoFar.flatMap((n, i) => {
    const t = n === null ? undefined : byNumber.get(n);
    return t?.feasible && t.objectives[0] !== null ? [{ x: i, y: t.objectives[0]! }] : [];
  });
  const value = (feasible: boolean) => tune.trials.filter((t) => t.feasible === feasible && t.objectives[0] !== null).map((t) => ({ x: t.number, y: t.objectives[0]! }));
  const axis = { xLabel: 'trial', yLabel: objective.metric };
  return [
    { name: 'convergence', title: `Best ${objective.metric} so far (${objective.direction})`, note: 'the best feasible trial after each trial (feasible first, as Optuna ranks them)', ...axis, kind: 'step', series: [{ name: 'best so far', points: best }] },
    { name: 'trials', title: `${objective.metric} of every trial`, note: 'feasible trials keep every constraint', ...axis, kind: 'points', series: [{ name: 'feasible', points: value(true) }, { name: 'infeasible', points: value(false) }] },
  ];
}

/** One plot per Pareto front: every trial as a point, the non-dominated ones as a second series, a constraint's bound as a line. */
function paretoPlots(tune: TuneFile): PlotSpec[] {
  return tune.pareto.map((front, i) => {
    const xIndex = tune.constraints.findIndex((c) => c.metric === front.x);
    const all = tune.trials.flatMap((t) => {
      const x = xIndex === -1 ? t.objectives[0] : t.constraints[xIndex];
      const y = xIndex === -1 ? t.objectives[1] : t.objectives[0];
      return x !== null && x !== undefined && y !== null && y !== undefined ? [{ x, y }] : [];
    });
    const bound = front.xBound?.max ?? front.xBound?.min;
    return {
      name: `pareto-${i}`,
      title: `Pareto front: ${front.y} (${front.directions[1]}) against ${front.x} (${front.directions[0]})`,
      note: 'every trial, and the trials no other beats on both',
      xLabel: front.x,
      yLabel: front.y,
      kind: 'points' as const,
      series: [{ name: 'trials', points: all }, { name: 'Pareto front', points: front.points.map((p) => ({ x: p.x, y: p.y })) }],
      ...(bound === undefined ? {} : { bands: [{ fromX: bound, toX: bound, label: `bound ${front.xBound?.max === undefined ? '≥' : '≤'} ${bound}` }] }),
    };
  });
}

function bestTable(tune: TuneFile): string {
  const byNumber = new Map(tune.trials.map((t) => [t.number, t]));
  const paramNames = Object.keys(tune.trials[0]?.params ?? {});
  const head = ['trial', ...tune.objectives.map((o) => o.metric), ...tune.constraints.map((c) => c.metric), 'feasible', ...paramNames].map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const cell = (v: number | string | boolean | null | undefined) => `<td>${escapeHtml(typeof v === 'number' ? formatValue(v) : v === null || v === undefined ? '–' : String(v))}</td>`;
  const rows = tune.best
    .map((n) => byNumber.get(n)!)
    .map((t) => `<tr>${cell(`#${t.number}`)}${t.objectives.map(cell).join('')}${t.constraints.map(cell).join('')}${cell(t.feasible ? 'yes' : 'no')}${paramNames.map((p) => cell(t.params[p])).join('')}</tr>`)
    .join('\n');
  const baseline = `<tr>${cell('base config')}${tune.baseline.objectives.map(cell).join('')}${tune.baseline.constraints.map(cell).join('')}${cell(tune.baseline.feasible ? 'yes' : 'no')}${paramNames.map(() => cell('')).join('')}</tr>`;
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n${baseline}\n</tbody></table></div>`;
}

function liveTable(tune: TuneFile): string {
  if (tune.live === undefined) return '';
  const metric = tune.objectives[0]!.metric;
  const rows = tune.live
    .map((l) => `<tr><td>#${l.number}</td><td>${formatValue(l.twin[0] ?? null)}</td><td>${formatValue(l.live[0] ?? null)}</td><td class="name">${l.reports.map(escapeHtml).join('<br>')}</td></tr>`)
    .join('\n');
  return `<h2>Twin against live</h2><div class="table-wrap"><table><thead><tr><th>trial</th><th>twin ${escapeHtml(metric)}</th><th>live ${escapeHtml(metric)}</th><th class="name">live report</th></tr></thead><tbody>\n${rows}\n</tbody></table></div>`;
}

/** report.html of a search: what was searched, the best trials against the base config, convergence and Pareto plots. */
export function renderTuneHtml(tune: TuneFile): string {
  const feasible = tune.trials.filter((t) => t.feasible).length;
  const facts = `<dl class="meta">
<dt>Space</dt><dd>${escapeHtml(tune.space)}</dd>
<dt>Workload</dt><dd>${escapeHtml(tune.workload)}</dd>
<dt>Search</dt><dd>${tune.trials.length} trials (${feasible} feasible), ${escapeHtml(tune.sampler)}, seed ${tune.seed}${tune.workloadSeeds === undefined ? '' : `, each the mean over workload seeds ${tune.workloadSeeds.join(', ')}`}, batches of ${tune.batchSize} on ${tune.parallelism} threads, ${(tune.wallMs / 1000).toFixed(1)} s</dd>
<dt>Objective</dt><dd>${tune.objectives.map((o) => `${o.direction} ${escapeHtml(o.metric)}`).join('; ')}</dd>
<dt>Constraints</dt><dd>${tune.constraints.map((c) => `${c.min === undefined ? '' : `${c.min} ≤ `}${escapeHtml(c.metric)}${c.max === undefined ? '' : ` ≤ ${c.max}`}`).join('; ') || 'none'}</dd>
</dl>`;
  return renderPlotsPage({
    title: 'sluice tune report',
    bodyHtml: `${facts}\n<h2>Best trials</h2>\n${bestTable(tune)}\n${liveTable(tune)}`,
    plots: [...convergencePlot(tune), ...paretoPlots(tune)],
  });
}
