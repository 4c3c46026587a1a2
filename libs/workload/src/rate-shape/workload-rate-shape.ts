import type { WorkloadSpec } from '../spec.js';
import { diurnalRateShape } from './diurnal.js';
import type { RateShape } from './rate-shape.js';
import { stagesRateShape } from './stages.js';

/** The spec's rate shape (`stages` or `diurnal`), or undefined for a constant `aggregate_rate`. */
export function rateShapeOf(spec: WorkloadSpec): RateShape | undefined {
  if (spec.stages !== undefined) return stagesRateShape(spec.stages);
  if (spec.diurnal !== undefined) return diurnalRateShape(spec.diurnal, spec.aggregate_rate);
  return undefined;
}
