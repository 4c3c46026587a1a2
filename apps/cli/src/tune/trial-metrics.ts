import { readMetric, type Space, type TrialMeasure } from '@sluice/tune';

/** The objectives' and constraint metrics' values in one run's summary (null where a metric has no value). */
export function measureOf(space: Space, summary: unknown, durationMs: number): TrialMeasure {
  const value = (ref: Space['objectives'][number] | Space['constraints'][number]) => {
    const reading = readMetric(summary, ref);
    return reading.found ? reading.value : null;
  };
  return { objectives: space.objectives.map(value), constraints: space.constraints.map(value), durationMs };
}

/**
 * Every metric of the space checked against a real report's summary (the baseline run's): a path
 * that is not there, or is not a number, is a problem naming its key in the space file.
 */
export function metricProblems(space: Space, summary: unknown): string[] {
  const problems: string[] = [];
  const many = Array.isArray(space.file.objective);
  space.objectives.forEach((o, i) => {
    const reading = readMetric(summary, o);
    if (!reading.found) problems.push(`objective${many ? `[${i}]` : ''}.${o.direction}: ${reading.problem}`);
  });
  space.constraints.forEach((c, i) => {
    const reading = readMetric(summary, c);
    if (!reading.found) problems.push(`constraints[${i}].metric: ${reading.problem}`);
  });
  return problems;
}
