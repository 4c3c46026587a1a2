/**
 * One searched setting and how the optimiser sees it. A numeric parameter lives on an internal
 * axis: its value for a linear range, ln(value) for a log range; an integer range widens by half a
 * step each side so the end values get their fair share of the axis once rounded (as Optuna's
 * Parzen estimator bounds an IntDistribution). A choice parameter is the index of its choice.
 */
export type ParamValue = number | string | boolean;

export interface RangeParam {
  readonly kind: 'range';
  /** The config key it sets, a dotted path as `--key.path=value` takes it. */
  readonly path: string;
  readonly min: number;
  readonly max: number;
  readonly log: boolean;
  readonly int: boolean;
}

export interface ChoiceParam {
  readonly kind: 'choice';
  readonly path: string;
  readonly choices: readonly ParamValue[];
}

export type Param = RangeParam | ChoiceParam;

/** A trial's settings by config key, in the space's parameter order. */
export type ParamSet = Readonly<Record<string, ParamValue>>;

/** The internal axis [low, high] of a range parameter. */
export function axisBounds(p: RangeParam): { readonly low: number; readonly high: number } {
  const min = p.int ? p.min - 0.5 : p.min;
  const max = p.int ? p.max + 0.5 : p.max;
  // The space schema keeps a log range above 0 (an integer one from 1), so min here is > 0.
  return p.log ? { low: Math.log(min), high: Math.log(max) } : { low: min, high: max };
}

/** A point of the internal axis as the setting's value: exp for log, rounded and clipped for int. */
export function fromAxis(p: RangeParam, x: number): number {
  const value = p.log ? Math.exp(x) : x;
  if (p.int) return Math.min(p.max, Math.max(p.min, Math.round(value)));
  return Math.min(p.max, Math.max(p.min, value));
}

/** A setting's value on the internal axis (the inverse of fromAxis, up to rounding). */
export function toAxis(p: RangeParam, value: number): number {
  return p.log ? Math.log(value) : value;
}
