import type { Param, ParamSet } from './parameter.js';
import { DEFAULT_CANDIDATES, DEFAULT_STARTUP_TRIALS, TpeSampler, type Observed } from './tpe/tpe.sampler.js';
import { rankTrials, type Direction } from './tpe/ranking.js';

/**
 * The search loop. Trials are proposed in batches of `batchSize`, each batch by batch suggestion
 * with a constant liar (its earlier points count as bad, unfinished trials while its later points
 * are drawn), then evaluated together, in parallel if the evaluator likes; the next batch sees the
 * whole finished batch. So which points are tried depends on the seed and the batch size, never on
 * how many threads ran them or which finished first: the same space gives the same trials at any
 * parallelism. Asynchronous TPE (propose whenever a thread frees up) keeps threads busier, but
 * what it proposes depends on finishing order; reproducibility was asked for, so batches.
 */
export interface StudySettings {
  readonly params: readonly Param[];
  readonly directions: readonly Direction[];
  /** Bounds on the constraint metrics, in order: a value above max or below min violates. */
  readonly constraints: readonly ConstraintBound[];
  readonly trials: number;
  readonly batchSize: number;
  readonly seed: number;
  /** 'random' proposes every trial at random (the baseline TPE must beat). */
  readonly sampler?: 'tpe' | 'random';
  readonly startupTrials?: number;
  readonly candidates?: number;
}

export interface ConstraintBound {
  readonly min?: number;
  readonly max?: number;
}

/** What one trial measured: the objectives' and the constraint metrics' values (null: the run gave none). */
export interface TrialMeasure {
  readonly objectives: readonly (number | null)[];
  readonly constraints: readonly (number | null)[];
  readonly durationMs: number;
}

export interface TrialPlan {
  readonly number: number;
  readonly params: ParamSet;
}

export interface Trial extends Observed, TrialMeasure {
  readonly feasible: boolean;
}

/** Evaluates a batch of trials; the results come back in the batch's order. */
export type Evaluate = (batch: readonly TrialPlan[]) => Promise<readonly TrialMeasure[]>;

/**
 * Optuna's constraint convention (c ≤ 0 is feasible; the violation sums the positive parts), with
 * a bound given as min/max: the violation of value v is max(0, v − max) + max(0, min − v). A
 * constraint metric with no value (null) violates infinitely: nothing says it holds.
 */
export function violationOf(bounds: readonly ConstraintBound[], values: readonly (number | null)[]): number {
  let total = 0;
  bounds.forEach((b, i) => {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      total = Infinity;
      return;
    }
    if (b.max !== undefined) total += Math.max(0, v - b.max);
    if (b.min !== undefined) total += Math.max(0, b.min - v);
  });
  return total;
}

export async function runStudy(settings: StudySettings, evaluate: Evaluate, onBatch?: (trials: readonly Trial[]) => void): Promise<Trial[]> {
  const tpe = new TpeSampler({
    params: settings.params,
    directions: settings.directions,
    seed: settings.seed,
    startupTrials: settings.sampler === 'random' ? Infinity : (settings.startupTrials ?? DEFAULT_STARTUP_TRIALS),
    candidates: settings.candidates ?? DEFAULT_CANDIDATES,
  });
  const finished: Trial[] = [];
  while (finished.length < settings.trials) {
    const size = Math.min(settings.batchSize, settings.trials - finished.length);
    const batch: TrialPlan[] = [];
    for (let i = 0; i < size; i++) {
      const number = finished.length + i;
      batch.push({ number, params: tpe.suggest(number, finished, batch.map((b) => b.params)) });
    }
    const measures = await evaluate(batch);
    batch.forEach((plan, i) => {
      const m = measures[i]!;
      const violation = violationOf(settings.constraints, m.constraints);
      finished.push({ ...plan, ...m, violation, feasible: violation === 0 && m.objectives.every((v) => v !== null) });
    });
    onBatch?.(finished);
  }
  return finished;
}

/** The best trial so far after each trial: the convergence curve (null until one has a value). */
export function bestSoFar(trials: readonly Trial[], directions: readonly Direction[]): (Trial | null)[] {
  const curve: (Trial | null)[] = [];
  for (let i = 0; i < trials.length; i++) curve.push(rankTrials(trials.slice(0, i + 1), directions)[0] ?? null);
  return curve.map((t) => (t !== null && t.objectives.every((v) => v !== null) ? t : null));
}

/** The best k trials, feasible first (Optuna's order). */
export function bestTrials(trials: readonly Trial[], directions: readonly Direction[], k: number): Trial[] {
  return rankTrials(trials, directions).slice(0, k);
}


/**
 * The mean of several runs' measures of one trial (one per workload seed): each metric's mean, null
 * when any run gave none (a mean over the runs that had a value would favour the ones that did);
 * the durations add up.
 */
export function meanMeasure(runs: readonly TrialMeasure[]): TrialMeasure {
  const mean = (pick: (m: TrialMeasure) => readonly (number | null)[]) =>
    pick(runs[0]!).map((_, i) => {
      let sum = 0;
      for (const run of runs) {
        const v = pick(run)[i];
        if (v === null || v === undefined) return null;
        sum += v;
      }
      return sum / runs.length;
    });
  return { objectives: mean((m) => m.objectives), constraints: mean((m) => m.constraints), durationMs: runs.reduce((a, m) => a + m.durationMs, 0) };
}
