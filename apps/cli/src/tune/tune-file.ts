import { bestSoFar, bestTrials, metricLabel, paretoFront, type Direction, type ParamSet, type ParetoPoint, type Trial, type TrialMeasure } from '@sluice/tune';
import type { LoadedSpace } from './read-space.js';

/** One trial as tune.json keeps it. */
export interface TuneTrialEntry {
  readonly number: number;
  readonly params: ParamSet;
  /** One value per objective, in the space's order (null: the run gave none). */
  readonly objectives: readonly (number | null)[];
  /** One value per constraint metric, in the space's order. */
  readonly constraints: readonly (number | null)[];
  /** Σ how far each constraint metric lies outside its bound; 0 when feasible. */
  readonly violation: number | null;
  readonly feasible: boolean;
  /** Wall time of the twin run, ms. */
  readonly durationMs: number;
}

/** A Pareto front between two metrics (x first), with the directions that make a point better. */
export interface TuneParetoFront {
  readonly x: string;
  readonly y: string;
  readonly directions: readonly [Direction, Direction];
  /** The bound on x when x is a constraint metric (drawn on the plot). */
  readonly xBound?: { readonly min?: number; readonly max?: number };
  readonly points: readonly ParetoPoint[];
}

/** A candidate run live against a real cluster beside its twin figures. */
export interface TuneLiveEntry {
  readonly number: number;
  readonly params: ParamSet;
  readonly twin: readonly (number | null)[];
  /** The mean over the workload seeds, as for the twin. */
  readonly live: readonly (number | null)[];
  /** The live report.json of each workload seed. */
  readonly reports: readonly string[];
}

/** tune.json: the whole search, enough to redraw every plot and to rerun any trial. */
export interface TuneFile {
  readonly version: 1;
  readonly tool: 'sluice tune';
  readonly space: string;
  readonly workload: string;
  readonly baseArgs: readonly string[];
  readonly sampler: 'tpe' | 'random';
  readonly seed: number;
  /** The workload seeds each trial ran with (its metrics are their mean); absent: the workload's own, once. */
  readonly workloadSeeds?: readonly number[];
  readonly batchSize: number;
  readonly parallelism: number;
  readonly objectives: readonly { readonly metric: string; readonly direction: Direction }[];
  readonly constraints: readonly { readonly metric: string; readonly min?: number; readonly max?: number }[];
  /** The base config alone (no parameter set), run first: it checks the metric paths and is the reference. */
  readonly baseline: TrialMeasure & { readonly feasible: boolean };
  readonly trials: readonly TuneTrialEntry[];
  /** The best trial after each trial, by number (null until one has a value): the convergence curve. */
  readonly bestSoFar: readonly (number | null)[];
  /** The best trials, best first (feasible first), as many as `confirm`. */
  readonly best: readonly number[];
  readonly pareto: readonly TuneParetoFront[];
  /** Wall time of the whole search, ms. */
  readonly wallMs: number;
  readonly live?: readonly TuneLiveEntry[];
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);

/** The Pareto fronts: between the two objectives when two are given, else the objective against each constraint metric. */
export function paretoFronts(space: LoadedSpace, trials: readonly Trial[]): TuneParetoFront[] {
  const [first, second] = space.objectives;
  if (first === undefined) return [];
  if (second !== undefined) {
    // Between two objectives, only trials that keep the constraints count.
    const points = trials.filter((t) => t.feasible).map((t) => ({ number: t.number, x: t.objectives[0]!, y: t.objectives[1]! }));
    return [{ x: metricLabel(first), y: metricLabel(second), directions: [first.direction, second.direction], points: paretoFront(points, [first.direction, second.direction]) }];
  }
  return space.constraints.map((c, i) => {
    // A metric capped by max is better lower; one with only a floor is better higher.
    const xDirection: Direction = c.max === undefined ? 'maximize' : 'minimize';
    const points = trials.map((t) => ({ number: t.number, x: t.constraints[i]!, y: t.objectives[0]! }));
    return {
      x: metricLabel(c),
      y: metricLabel(first),
      directions: [xDirection, first.direction],
      xBound: { ...(c.min === undefined ? {} : { min: c.min }), ...(c.max === undefined ? {} : { max: c.max }) },
      points: paretoFront(points, [xDirection, first.direction]),
    };
  });
}

export function buildTuneFile(
  space: LoadedSpace,
  run: { readonly seed: number; readonly parallelism: number; readonly baseline: TrialMeasure & { feasible: boolean }; readonly trials: readonly Trial[]; readonly wallMs: number },
): TuneFile {
  const { file } = space;
  const directions = space.objectives.map((o) => o.direction);
  return {
    version: 1,
    tool: 'sluice tune',
    space: space.spaceFile,
    workload: space.workloadFile,
    baseArgs: space.baseArgs,
    sampler: file.sampler,
    seed: run.seed,
    ...(file.workloadSeeds === undefined ? {} : { workloadSeeds: file.workloadSeeds }),
    batchSize: file.batchSize,
    parallelism: run.parallelism,
    objectives: space.objectives.map((o) => ({ metric: metricLabel(o), direction: o.direction })),
    constraints: space.constraints.map((c) => ({ metric: metricLabel(c), ...(c.min === undefined ? {} : { min: c.min }), ...(c.max === undefined ? {} : { max: c.max }) })),
    baseline: run.baseline,
    trials: run.trials.map((t) => ({
      number: t.number,
      params: t.params,
      objectives: t.objectives,
      constraints: t.constraints,
      violation: finite(t.violation),
      feasible: t.feasible,
      durationMs: t.durationMs,
    })),
    bestSoFar: bestSoFar(run.trials, directions).map((t) => t?.number ?? null),
    best: bestTrials(run.trials, directions, file.confirm).map((t) => t.number),
    pareto: paretoFronts(space, run.trials),
    wallMs: run.wallMs,
  };
}
