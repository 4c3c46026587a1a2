/**
 * Numerical helpers for the workload generator: log-gamma, the Weibull shape for a coefficient of
 * variation, and samplers that draw every variate from one injected uniform source in [0, 1).
 */

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~15 significant digits), with reflection below 0.5. */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma: x must be > 0, got ${x}`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + LANCZOS_G + 0.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** ln(1 + cv²) of a Weibull with shape k: ln Γ(1 + 2/k) − 2 ln Γ(1 + 1/k). Strictly decreasing in k. */
function weibullLogCv2p1(k: number): number {
  return logGamma(1 + 2 / k) - 2 * logGamma(1 + 1 / k);
}

const WEIBULL_K_MIN = 0.02;
const WEIBULL_K_MAX = 1e4;

/**
 * The Weibull shape k whose coefficient of variation is `cv`, by bisection on ln k between 0.02
 * (cv ≈ 1e32) and 10⁴ (cv ≈ 1.3e-4); cv values outside that range get the nearest end.
 */
export function weibullShapeForCv(cv: number): number {
  if (!(cv > 0)) throw new RangeError(`weibullShapeForCv: cv must be > 0, got ${cv}`);
  const target = Math.log1p(cv * cv);
  let lo = Math.log(WEIBULL_K_MIN);
  let hi = Math.log(WEIBULL_K_MAX);
  if (weibullLogCv2p1(Math.exp(lo)) <= target) return WEIBULL_K_MIN;
  if (weibullLogCv2p1(Math.exp(hi)) >= target) return WEIBULL_K_MAX;
  for (let i = 0; i < 200 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2;
    // cv falls as k grows: too much variation means k must grow.
    if (weibullLogCv2p1(Math.exp(mid)) > target) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

/** A uniform source in [0, 1), e.g. `seededRandom(seed)` from @sluice/collections. */
export type Uniform = () => number;

/** A uniform in (0, 1]: safe to take the log of. */
function openUniform(rng: Uniform): number {
  return 1 - rng();
}

/** Exponential with the given mean. */
export function sampleExponential(rng: Uniform, mean: number): number {
  return -Math.log(openUniform(rng)) * mean;
}

/** Standard normal by Box–Muller; draws exactly two uniforms (no cached spare, so draws stay in lockstep). */
export function sampleStandardNormal(rng: Uniform): number {
  const u1 = openUniform(rng);
  const u2 = rng();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Gamma(shape, scale) by Marsaglia–Tsang; shapes below 1 by the boost Gamma(k+1)·U^(1/k). */
export function sampleGamma(rng: Uniform, shape: number, scale: number): number {
  if (shape < 1) {
    const boost = Math.pow(openUniform(rng), 1 / shape);
    return sampleGamma(rng, shape + 1, scale) * boost;
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = sampleStandardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = openUniform(rng);
    if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}

/** Weibull(shape, scale): scale · (−ln U)^(1/shape). */
export function sampleWeibull(rng: Uniform, shape: number, scale: number): number {
  return scale * Math.pow(-Math.log(openUniform(rng)), 1 / shape);
}
