/**
 * How finished trials rank for the TPE split and for "best": Optuna's rule with a constraints
 * function (optuna/samplers/_tpe/sampler.py at 8e33e75edb2201284acad4c046deea499e47c0a1,
 * `_split_trials`): feasible trials first, by their objective; then infeasible ones by their total
 * violation (the sum of the positive parts). A trial whose objective has no value (a latency
 * percentile of a class that completed nothing) ranks last.
 *
 * With two objectives, feasible trials rank by non-domination rank (Pareto layers), as Optuna's
 * multi-objective split does; within a layer we order by the sum of the trial's positions on each
 * objective, where Optuna solves a hypervolume subset selection: simpler, and deterministic.
 */
export type Direction = 'minimize' | 'maximize';

export interface Scored {
  readonly number: number;
  /** One value per objective; null when the run gave none. */
  readonly objectives: readonly (number | null)[];
  /** 0 when every constraint holds. */
  readonly violation: number;
}

/** The objective as a loss (smaller is better). */
export function lossOf(value: number, direction: Direction): number {
  return direction === 'minimize' ? value : -value;
}

const hasValues = (t: Scored): boolean => t.objectives.every((v) => v !== null && Number.isFinite(v));

/** True when a's losses are all ≤ b's and one is <. */
export function dominates(a: readonly number[], b: readonly number[]): boolean {
  let strictly = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]! > b[i]!) return false;
    if (a[i]! < b[i]!) strictly = true;
  }
  return strictly;
}

/** Non-domination rank of each loss vector: 0 for the Pareto front, 1 for the front without it, … */
export function nonDominationRanks(losses: readonly (readonly number[])[]): number[] {
  const ranks = new Array<number>(losses.length).fill(-1);
  let rank = 0;
  let left = losses.length;
  while (left > 0) {
    const layer: number[] = [];
    for (let i = 0; i < losses.length; i++) {
      if (ranks[i] !== -1) continue;
      // The layer is found before any of it is marked, so only the still unranked compete.
      const dominated = losses.some((other, j) => j !== i && ranks[j] === -1 && dominates(other, losses[i]!));
      if (!dominated) layer.push(i);
    }
    for (const i of layer) ranks[i] = rank;
    left -= layer.length;
    rank++;
  }
  return ranks;
}

/** The trials best first (a new array); ties keep trial-number order, so the ranking is deterministic. */
export function rankTrials<T extends Scored>(trials: readonly T[], directions: readonly Direction[]): T[] {
  const feasible = trials.filter((t) => t.violation === 0 && hasValues(t));
  const infeasible = trials.filter((t) => t.violation > 0 && hasValues(t)).sort((a, b) => a.violation - b.violation || a.number - b.number);
  const valueless = trials.filter((t) => !hasValues(t)).sort((a, b) => a.number - b.number);
  const losses = feasible.map((t) => t.objectives.map((v, i) => lossOf(v!, directions[i]!)));
  let order: number[];
  if (directions.length === 1) {
    order = feasible.map((_, i) => i).sort((a, b) => losses[a]![0]! - losses[b]![0]! || feasible[a]!.number - feasible[b]!.number);
  } else {
    const ranks = nonDominationRanks(losses);
    const position = positionSums(losses);
    order = feasible.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]! || position[a]! - position[b]! || feasible[a]!.number - feasible[b]!.number);
  }
  return [...order.map((i) => feasible[i]!), ...infeasible, ...valueless];
}

/** For each vector, the sum over objectives of its position when sorted by that objective. */
function positionSums(losses: readonly (readonly number[])[]): number[] {
  const sums = new Array<number>(losses.length).fill(0);
  const dims = losses[0]?.length ?? 0;
  for (let d = 0; d < dims; d++) {
    const order = losses.map((_, i) => i).sort((a, b) => losses[a]![d]! - losses[b]![d]! || a - b);
    order.forEach((i, pos) => (sums[i]! += pos));
  }
  return sums;
}
