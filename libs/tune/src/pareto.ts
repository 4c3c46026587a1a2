import { dominates, lossOf, type Direction } from './tpe/ranking.js';

/** A point on a Pareto plot: one trial's values of two metrics. */
export interface ParetoPoint {
  readonly number: number;
  readonly x: number;
  readonly y: number;
}

/**
 * The non-dominated points of two metrics, each with its direction (a constraint metric bounded
 * by max is minimised, by min maximised): the trade-off curve a researcher reads, sorted by x.
 * Trials with no value for either metric are left out; of trials with the very same values (a
 * plateau of the objective), only the first is kept.
 */
export function paretoFront(points: readonly { number: number; x: number | null; y: number | null }[], directions: readonly [Direction, Direction]): ParetoPoint[] {
  const valued = points.filter((p): p is ParetoPoint => p.x !== null && p.y !== null && Number.isFinite(p.x) && Number.isFinite(p.y));
  const loss = (p: ParetoPoint) => [lossOf(p.x, directions[0]), lossOf(p.y, directions[1])];
  const front = valued.filter((p) => !valued.some((q) => q !== p && dominates(loss(q), loss(p)))).sort((a, b) => a.x - b.x || a.y - b.y || a.number - b.number);
  return front.filter((p, i) => i === 0 || p.x !== front[i - 1]!.x || p.y !== front[i - 1]!.y);
}
