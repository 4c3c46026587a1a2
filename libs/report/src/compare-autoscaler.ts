import type { AutoscalerSection } from './autoscaler-section.js';

/** One compared figure of the autoscaler section. */
interface ComparedFigure {
  readonly metric: string;
  readonly values: readonly (number | null)[];
  readonly deltasPct: readonly (number | null)[];
}

const FIGURES: readonly [string, (a: AutoscalerSection) => number | null][] = [
  ['instance-hours', (a) => a.instanceHours],
  ['good / instance-hour', (a) => a.goodPerInstanceHour],
  ['output tok / instance-hour', (a) => a.outputTokensPerInstanceHour],
  ['scale-ups', (a) => a.scaleUps.length],
  // The slowest scale-up's decision → routable: what the start-up cost at worst.
  ['scale-up reaction max ms', (a) => (a.scaleUps.some((u) => u.reactionMs !== null) ? Math.max(...a.scaleUps.flatMap((u) => (u.reactionMs === null ? [] : [u.reactionMs]))) : null)],
];

/**
 * Rows for autoscaled runs (report.json's `autoscaler`): cost and what it bought, so two ways of
 * scaling read side by side. None when no report has the section; missing where one has not.
 */
export function compareAutoscaler(files: readonly { readonly autoscaler?: AutoscalerSection | undefined }[]): ComparedFigure[] {
  if (files.every((f) => f.autoscaler === undefined)) return [];
  return FIGURES.map(([metric, read]) => {
    const values = files.map((f) => (f.autoscaler === undefined ? null : read(f.autoscaler)));
    const base = values[0] ?? null;
    return { metric, values, deltasPct: values.map((v) => (v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100)) };
  });
}
