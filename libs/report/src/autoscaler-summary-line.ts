import type { AutoscalerSection } from './autoscaler-section.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const slowest = (values: readonly (number | null)[]) => values.reduce<number | null>((max, v) => (v === null ? max : max === null ? v : Math.max(max, v)), null);

/**
 * The autoscaler's figures as one line under the summary table (`sluice run`, `sluice simulate`):
 * its scale-ups and the slowest of their reactions, the instance-hours and goodput per
 * instance-hour, so a run's cost is on the terminal beside its latencies.
 */
export function autoscalerSummaryLine(section: AutoscalerSection): string {
  const ups = section.scaleUps;
  const reaction = slowest(ups.map((u) => u.reactionMs));
  const fromDemand = slowest(ups.map((u) => u.fromDemandMs));
  const reactions = reaction === null ? '' : ` (decision → routable ≤ ${seconds(reaction)}${fromDemand === null ? '' : `, demand → routable ≤ ${seconds(fromDemand)}`})`;
  const good = section.goodPerInstanceHour === null ? 'no instance-time' : `${Math.round(section.goodPerInstanceHour)} good requests per instance-hour`;
  return `autoscaler      ${section.metric}: ${ups.length} scale-up${ups.length === 1 ? '' : 's'}${reactions}, ${section.instanceHours.toFixed(4)} instance-hours, ${good}${section.source === 'gauges' ? ' (from its gauges each second)' : ''}`;
}
