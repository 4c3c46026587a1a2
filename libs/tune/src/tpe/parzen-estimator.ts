import { axisBounds, type Param } from '../parameter.js';
import { logSumExp, normalCdf, normalLogPdf, standardNormal } from './normal.js';

/**
 * A multivariate Parzen estimator: a weighted mixture with one kernel per observed trial plus a
 * prior kernel, each kernel a product over the parameters of a truncated normal (a range) or a
 * categorical distribution (a choice). The facts are Optuna's
 * (optuna/samplers/_tpe/parzen_estimator.py at ceef94e19519fc6f6040a8964447455177a5eb45):
 * - the prior kernel sits at the middle of each range with σ = the range's width, weighted
 *   `priorWeight` (1) against the observations' weights;
 * - multivariate bandwidth by Scott's rule as in BOHB: σ = 0.2 · n^(−1/(d+4)) · width;
 * - a choice kernel puts priorWeight/(n+1) on every choice and 1 more on the observed one.
 * One kernel index drives every dimension of a draw (the "multivariate" TPE), so parameters that
 * are good together are proposed together. The σ is clipped to [width/min(100, n+1), width], the
 * "magic clip" of Bergstra et al. 2011 that keeps a kernel from collapsing onto a point.
 */
export const SIGMA0_MAGNITUDE = 0.2;

interface NumericDim {
  readonly kind: 'range';
  readonly low: number;
  readonly high: number;
  readonly mus: Float64Array;
  readonly sigmas: Float64Array;
  /** ln of each kernel's mass inside [low, high]. */
  readonly logAccept: Float64Array;
}

interface ChoiceDim {
  readonly kind: 'choice';
  /** Per kernel, the probability of each choice (rows sum to 1). */
  readonly rows: readonly Float64Array[];
}

type Dim = NumericDim | ChoiceDim;

export class ParzenEstimator {
  private readonly dims: readonly Dim[];
  /** ln of each kernel's normalised weight; the last kernel is the prior. */
  private readonly logWeights: Float64Array;
  private readonly cumulative: Float64Array;

  /**
   * @param observations one point per trial, each on the parameters' internal axes (a choice as
   *   its index), in the params' order
   * @param weights one weight ≥ 0 per observation (Optuna's ramp gives older trials less)
   */
  constructor(params: readonly Param[], observations: readonly (readonly number[])[], weights: readonly number[], priorWeight = 1) {
    const n = observations.length;
    const k = n + 1;
    const raw = [...weights, priorWeight];
    const total = raw.reduce((a, b) => a + b, 0);
    this.logWeights = Float64Array.from(raw, (w) => Math.log(w / total));
    this.cumulative = new Float64Array(k);
    let acc = 0;
    raw.forEach((w, i) => (this.cumulative[i] = acc += w / total));
    const sigma0 = SIGMA0_MAGNITUDE * Math.max(n, 1) ** (-1 / (params.length + 4));

    this.dims = params.map((p, j): Dim => {
      if (p.kind === 'choice') {
        const c = p.choices.length;
        const rows = Array.from({ length: k }, (_, i) => {
          if (i === n) return new Float64Array(c).fill(1 / c);
          const row = new Float64Array(c).fill(priorWeight / (n + 1));
          row[observations[i]![j]!]! += 1;
          const sum = row.reduce((a, b) => a + b, 0);
          return row.map((v) => v / sum);
        });
        return { kind: 'choice', rows };
      }
      const { low, high } = axisBounds(p);
      const width = high - low;
      const minSigma = width / Math.min(100, n + 1);
      const mus = new Float64Array(k);
      const sigmas = new Float64Array(k);
      for (let i = 0; i < n; i++) {
        mus[i] = observations[i]![j]!;
        sigmas[i] = Math.min(width, Math.max(minSigma, sigma0 * width));
      }
      mus[n] = (low + high) / 2;
      sigmas[n] = width;
      const logAccept = Float64Array.from(mus, (mu, i) => Math.log(Math.max(1e-300, normalCdf(high, mu, sigmas[i]!) - normalCdf(low, mu, sigmas[i]!))));
      return { kind: 'range', low, high, mus, sigmas, logAccept };
    });
  }

  /** `count` points drawn from the mixture, on the internal axes. */
  sample(random: () => number, count: number): number[][] {
    const out: number[][] = [];
    for (let s = 0; s < count; s++) {
      const kernel = this.pickKernel(random());
      out.push(this.dims.map((d) => (d.kind === 'choice' ? pickIndex(d.rows[kernel]!, random()) : truncatedNormal(random, d.mus[kernel]!, d.sigmas[kernel]!, d.low, d.high))));
    }
    return out;
  }

  /** ln of the mixture's density at a point of the internal axes. */
  logPdf(x: readonly number[]): number {
    const terms: number[] = [];
    for (let i = 0; i < this.logWeights.length; i++) {
      let t = this.logWeights[i]!;
      this.dims.forEach((d, j) => {
        const v = x[j]!;
        t += d.kind === 'choice' ? Math.log(d.rows[i]![v]!) : normalLogPdf(v, d.mus[i]!, d.sigmas[i]!) - d.logAccept[i]!;
      });
      terms.push(t);
    }
    return logSumExp(terms);
  }

  private pickKernel(u: number): number {
    for (let i = 0; i < this.cumulative.length; i++) if (u < this.cumulative[i]!) return i;
    return this.cumulative.length - 1;
  }
}

function pickIndex(probabilities: Float64Array, u: number): number {
  let acc = 0;
  for (let i = 0; i < probabilities.length; i++) {
    acc += probabilities[i]!;
    if (u < acc) return i;
  }
  return probabilities.length - 1;
}

/**
 * A draw of N(mu, σ²) inside [low, high] by rejection: the kernel's centre lies inside the range,
 * so at least a fair share of its mass does and a few tries suffice; clipped if all fail.
 */
function truncatedNormal(random: () => number, mu: number, sigma: number, low: number, high: number): number {
  for (let tries = 0; tries < 64; tries++) {
    const x = mu + sigma * standardNormal(random);
    if (x >= low && x <= high) return x;
  }
  return Math.min(high, Math.max(low, mu));
}
