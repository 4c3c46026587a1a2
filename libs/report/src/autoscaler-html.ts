import type { RunRecord } from '@sluice/metrics';
import type { AutoscalerSection } from './autoscaler-section.js';
import { escapeHtml } from './html-page.js';
import type { PlotSpec } from './plots.js';
import type { Point, Series } from './series.js';
import { thinSeries } from './thin.js';

const seconds = (ms: number | null): string => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);
const rate = (v: number | null): string => (v === null ? '—' : v.toFixed(0));

/** Requests arriving in each one-second bucket (the offered load, whatever became of them). */
export function arrivalsPerSecond(records: readonly RunRecord[]): Series[] {
  if (records.length === 0) return [];
  let last = 0;
  for (const r of records) last = Math.max(last, Math.floor(r.arrivalMs / 1000));
  const counts = new Array<number>(last + 2).fill(0);
  for (const r of records) {
    const s = Math.max(0, Math.floor(r.arrivalMs / 1000));
    counts[s] = counts[s]! + 1;
  }
  return [{ name: 'arrivals', points: counts.map((y, x) => ({ x, y })) }];
}

/** The pool's ready, starting, draining and desired instances as step series (x in s), held to `endMs`. */
export function instanceSeries(section: AutoscalerSection, endMs: number): Series[] {
  // Gauges that do not count draining instances give no draining series (not a line of zeros).
  const keys = section.instances.every((p) => p.draining !== undefined) ? (['desired', 'ready', 'starting', 'draining'] as const) : (['desired', 'ready', 'starting'] as const);
  return keys.map((key) => {
    const points: Point[] = section.instances.map((p) => ({ x: p.atMs / 1000, y: p[key] ?? 0 }));
    const last = points.at(-1);
    if (last && endMs / 1000 > last.x) points.push({ x: endMs / 1000, y: last.y });
    return { name: key, points };
  });
}

/**
 * The load and the pool, one above the other on the same time axis: arrivals per second (absent
 * when the report holds no records, a streamed run's), then the instances; each scale-up decision
 * is a line on both.
 */
export function autoscalerPlots(section: AutoscalerSection, records: readonly RunRecord[], endMs: number): PlotSpec[] {
  const bands = section.scaleUps.map((u) => ({ fromX: u.decidedAtMs / 1000, toX: (u.routableAtMs ?? u.decidedAtMs) / 1000, label: `+${u.added}` }));
  const common = { xLabel: 'time (s since start)', kind: 'step' as const, yMin: 0, bands };
  const arrivals = arrivalsPerSecond(records);
  const plots: PlotSpec[] = [
    ...(arrivals.length === 0 ? [] : [{ ...common, name: 'autoscaler-arrivals', title: 'Offered load', note: 'Requests arriving in each second. Shaded: each scale-up, from its decision to its instances routable.', yLabel: 'requests per second', series: arrivals }]),
    {
      ...common,
      name: 'autoscaler-instances',
      title: 'Instances over time',
      note: `Desired: what the autoscaler (on ${section.metric}) last asked for; ready: registered, not draining; starting: asked for, loading the model; draining: leaving. ${sourceNote(section)} Shaded: each scale-up.`,
      yLabel: 'instances',
      series: instanceSeries(section, endMs),
    },
  ];
  return plots.map((p) => ({ ...p, series: p.series.map((s) => thinSeries(s)) }));
}

/** Where the counts come from, in a sentence. */
function sourceNote(section: AutoscalerSection): string {
  return section.source === 'events' ? 'From lifecycle events as a reader hears them.' : `From the autoscaler's gauges, read every ${section.sampleEveryMs ?? 1000} ms (draining instances not counted).`;
}

/** The autoscaler section of report.html: cost, what it bought, each scale-up's reaction, then its plots. */
export function autoscalerSectionHtml(section: AutoscalerSection, plots: string): string {
  const ups = section.scaleUps
    .map((u) => `<tr><td>${seconds(u.demandAtMs)}</td><td>${seconds(u.decidedAtMs)}</td><td>+${u.added}</td><td>${seconds(u.routableAtMs)}</td><td>${seconds(u.reactionMs)}</td><td>${seconds(u.fromDemandMs)}</td></tr>`)
    .join('\n');
  const table =
    section.scaleUps.length === 0
      ? '<p>No scale-up.</p>'
      : `<div class="table-wrap"><table class="summary" id="autoscaler-scale-ups"><thead><tr><th>demand seen</th><th>decided</th><th>added</th><th>routable</th><th>decision → routable</th><th>demand → routable</th></tr></thead><tbody>
${ups}
</tbody></table></div>`;
  return `<h2>Autoscaler</h2>
<p id="autoscaler-figures">Metric <b>${escapeHtml(section.metric)}</b>; ${section.decisions.length} decisions. Instance-hours <b>${section.instanceHours.toFixed(4)}</b> (${section.instanceSeconds.toFixed(0)} instance-seconds over the run's window, starting and draining included); goodput per instance-hour <b>${rate(section.goodPerInstanceHour)}</b> requests, <b>${rate(section.outputTokensPerInstanceHour)}</b> output tokens. ${sourceNote(section)}</p>
${table}
${plots}`;
}
