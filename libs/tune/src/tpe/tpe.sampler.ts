import { seedOf, seededRandom } from '@sluice/collections';
import { axisBounds, fromAxis, toAxis, type Param, type ParamSet, type ParamValue } from '../parameter.js';
import { ParzenEstimator } from './parzen-estimator.js';
import { rankTrials, type Direction, type Scored } from './ranking.js';

/**
 * The Tree-structured Parzen Estimator (Bergstra et al., "Algorithms for Hyper-Parameter
 * Optimization", NeurIPS 2011) with Optuna's defaults (optuna/samplers/_tpe/sampler.py at
 * 8e33e75edb2201284acad4c046deea499e47c0a1): the first `startupTrials` (10) points are drawn at
 * random; after that, the finished trials split into the best γ(n) = min(⌈0.1·n⌉, 25) ("below")
 * and the rest ("above"); a Parzen estimator l(x) is fitted to the first and g(x) to the second,
 * `candidates` (24) points are drawn from l and the one with the largest l(x)/g(x) is proposed
 * (maximising l/g maximises expected improvement under TPE's model). The above group's kernels are
 * weighted by Optuna's ramp: the newest 25 weigh 1, older ones less, linearly from 1/n.
 *
 * Trials proposed but not finished (the rest of a batch) join the above group: Optuna's
 * constant liar, which pushes the batch's points apart instead of proposing one point k times.
 *
 * Each proposal draws from its own random stream, seeded by (seed, trial number), so trial t's
 * point depends only on the seed and the trials it was shown, not on thread timing.
 */
export interface TpeSettings {
  readonly params: readonly Param[];
  readonly directions: readonly Direction[];
  readonly seed: number;
  /** Random trials before the model takes over (Optuna: n_startup_trials = 10). */
  readonly startupTrials: number;
  /** Points drawn from l(x) per proposal (Optuna: n_ei_candidates = 24). */
  readonly candidates: number;
}

/** A finished trial as the sampler sees it. */
export interface Observed extends Scored {
  readonly params: ParamSet;
}

export const DEFAULT_STARTUP_TRIALS = 10;
export const DEFAULT_CANDIDATES = 24;

/** γ(n): how many of n finished trials form the "below" (good) group. */
export function belowCount(n: number): number {
  return Math.min(Math.ceil(0.1 * n), 25);
}

/** Optuna's default_weights: 1 each up to 25 trials, past that a ramp from 1/n for the oldest to 1 for the 25 newest. */
export function rampWeights(n: number): number[] {
  if (n < 25) return new Array<number>(n).fill(1);
  const ramp = n - 25;
  const weights: number[] = [];
  for (let i = 0; i < ramp; i++) weights.push(ramp === 1 ? 1 / n : 1 / n + ((1 - 1 / n) * i) / (ramp - 1));
  for (let i = 0; i < 25; i++) weights.push(1);
  return weights;
}

/** The random stream of trial `number` under `seed`. */
export function trialRandom(seed: number, number: number): () => number {
  return seededRandom(seedOf(`sluice-tune:${seed}:${number}`));
}

export class TpeSampler {
  constructor(private readonly settings: TpeSettings) {}

  /** The point for trial `number`, given the finished trials and the proposed-but-unfinished points. */
  suggest(number: number, finished: readonly Observed[], pending: readonly ParamSet[]): ParamSet {
    const random = trialRandom(this.settings.seed, number);
    const { params } = this.settings;
    if (finished.length < this.settings.startupTrials) return decode(params, sampleUniform(params, random));

    const ranked = rankTrials(finished, this.settings.directions);
    const nBelow = Math.max(1, belowCount(finished.length));
    const below = ranked.slice(0, nBelow);
    // Older trials weigh less in g(x): ramp over trial-number order, the liars newest.
    const above = ranked.slice(nBelow).sort((a, b) => a.number - b.number);
    const belowPoints = below.map((t) => encode(params, t.params));
    const abovePoints = [...above.map((t) => encode(params, t.params)), ...pending.map((p) => encode(params, p))];
    const l = new ParzenEstimator(params, belowPoints, new Array<number>(belowPoints.length).fill(1));
    const g = new ParzenEstimator(params, abovePoints, rampWeights(abovePoints.length));

    let best: number[] | undefined;
    let bestScore = -Infinity;
    for (const candidate of l.sample(random, this.settings.candidates)) {
      const score = l.logPdf(candidate) - g.logPdf(candidate);
      if (score > bestScore || best === undefined) {
        best = candidate;
        bestScore = score;
      }
    }
    return decode(params, best!);
  }
}

/** A point drawn uniformly on every internal axis (log ranges uniformly in the logarithm). */
export function sampleUniform(params: readonly Param[], random: () => number): number[] {
  return params.map((p) => {
    if (p.kind === 'choice') return Math.min(p.choices.length - 1, Math.floor(random() * p.choices.length));
    const { low, high } = axisBounds(p);
    return low + random() * (high - low);
  });
}

/** Settings onto the internal axes (a choice as its index). */
export function encode(params: readonly Param[], set: ParamSet): number[] {
  return params.map((p) => {
    const value = set[p.path]!;
    return p.kind === 'choice' ? p.choices.indexOf(value) : toAxis(p, value as number);
  });
}

/** Internal axes back to settings: rounded, clipped, a choice index to its value. */
export function decode(params: readonly Param[], point: readonly number[]): ParamSet {
  const set: Record<string, ParamValue> = {};
  params.forEach((p, j) => {
    set[p.path] = p.kind === 'choice' ? p.choices[point[j]!]! : fromAxis(p, point[j]!);
  });
  return set;
}
