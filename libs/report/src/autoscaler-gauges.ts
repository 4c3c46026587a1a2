import type { RunReport } from '@sluice/metrics';
import { costOf, type AutoscalerDecisionRow, type AutoscalerSection, type InstanceCountsPoint, type ScaleUpReaction } from './autoscaler-section.js';

/**
 * One reading of the autoscaler's /metrics (docs/metrics.md, "autoscaler"): its gauges and its
 * decision counter, at `atMs` in the records' time base.
 */
export interface AutoscalerGaugeSample {
  readonly atMs: number;
  /** sluice_autoscaler_desired_instances */
  readonly desired: number;
  /** sluice_autoscaler_ready_instances */
  readonly ready: number;
  /** sluice_autoscaler_starting_instances */
  readonly starting: number;
  /** sluice_autoscaler_metric_value: absent before the first decision. */
  readonly value?: number;
  /** sluice_autoscaler_decisions_total, summed over `direction`. */
  readonly decisions: number;
}

/**
 * report.json's `autoscaler` of a live run from its autoscaler's gauges read every `everyMs`
 * (when the run cannot follow the bus): a decision is a reading whose decision counter grew (its
 * time is the reading's, up to `everyMs` late); a scale-up is routable at the first reading whose
 * ready count reached what it asked for, before a decision asked for less.
 */
export function gaugeAutoscalerSection(metric: string, samples: readonly AutoscalerGaugeSample[], everyMs: number, summary: RunReport): AutoscalerSection {
  const decisions: AutoscalerDecisionRow[] = [];
  const instances: InstanceCountsPoint[] = [];
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const before = samples[i - 1];
    if (before !== undefined && s.decisions > before.decisions && s.value !== undefined) decisions.push({ atMs: s.atMs, value: s.value, current: before.desired, ready: before.ready, desired: s.desired });
    const last = instances.at(-1);
    if (last && last.ready === s.ready && last.starting === s.starting && last.desired === s.desired) continue;
    instances.push({ atMs: s.atMs, ready: s.ready, starting: s.starting, desired: s.desired });
  }
  return { metric, source: 'gauges', sampleEveryMs: everyMs, decisions, instances, scaleUps: scaleUpsFromCounts(decisions, samples), ...costOf(instances, summary) };
}

function scaleUpsFromCounts(decisions: readonly AutoscalerDecisionRow[], samples: readonly AutoscalerGaugeSample[]): ScaleUpReaction[] {
  const ups: ScaleUpReaction[] = [];
  let demandAtMs: number | undefined;
  for (const [d, decision] of decisions.entries()) {
    if (decision.desired <= decision.current) {
      demandAtMs = undefined;
      continue;
    }
    demandAtMs ??= decision.atMs;
    // Routable once ready reaches what it asked for, unless a later decision asked for less first.
    const cancelledAtMs = decisions.slice(d + 1).find((later) => later.desired < decision.desired)?.atMs ?? Number.POSITIVE_INFINITY;
    const reached = samples.find((s) => s.atMs >= decision.atMs && s.atMs <= cancelledAtMs && s.ready >= decision.desired);
    const routableAtMs = reached?.atMs ?? null;
    ups.push({
      decidedAtMs: decision.atMs,
      demandAtMs,
      added: decision.desired - decision.current,
      routableAtMs,
      reactionMs: routableAtMs === null ? null : routableAtMs - decision.atMs,
      fromDemandMs: routableAtMs === null ? null : routableAtMs - demandAtMs,
    });
  }
  return ups;
}
