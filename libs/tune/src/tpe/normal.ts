/** The normal distribution's pieces the Parzen estimator needs, with no dependency. */

const SQRT2 = Math.SQRT2;
const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * erf by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7): ample for kernel masses, which
 * only weigh candidates against each other.
 */
export function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return sign * y;
}

/** P(X ≤ x) for X ~ N(mu, sigma²). */
export function normalCdf(x: number, mu: number, sigma: number): number {
  return 0.5 * (1 + erf((x - mu) / (sigma * SQRT2)));
}

/** ln of the N(mu, sigma²) density at x. */
export function normalLogPdf(x: number, mu: number, sigma: number): number {
  const z = (x - mu) / sigma;
  return -0.5 * z * z - Math.log(sigma) - LOG_SQRT_2PI;
}

/** A standard normal draw from two uniform draws (Box–Muller). */
export function standardNormal(random: () => number): number {
  // 1 − u keeps the logarithm's argument in (0, 1].
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** ln(Σ exp(xs)) without overflow. */
export function logSumExp(xs: readonly number[]): number {
  let max = -Infinity;
  for (const x of xs) if (x > max) max = x;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (const x of xs) sum += Math.exp(x - max);
  return max + Math.log(sum);
}
