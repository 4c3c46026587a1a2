import type { Summary } from './summary.js';

const LATENCY_METRICS = ['ttft', 'itl', 'tpot', 'e2e'] as const;
const LATENCY_STATS = ['mean', 'p50', 'p90', 'p95', 'p99'] as const;

/**
 * The accepted fitness term names: `<ttft|itl|tpot|e2e>_<mean|p50|p90|p95|p99>` (e.g. `ttft_p99`),
 * `throughput_rps`, `throughput_tps`, and two of sluice's own: `goodput_rps` (scored as
 * throughput_rps) and `slo_attainment` (already in [0, 1]; 0 when no request had a target).
 */
export const FITNESS_TERMS: readonly string[] = [
  ...LATENCY_METRICS.flatMap((m) => LATENCY_STATS.map((s) => `${m}_${s}`)),
  'throughput_rps',
  'throughput_tps',
  'goodput_rps',
  'slo_attainment',
];

/**
 * BLIS's names for the terms it has (`--fitness-weights "p99_ttft:3,mean_e2e:1,throughput:2"`,
 * docs/guide/results.md, inference-sim/inference-sim@f90a1e3a6787da17c2cd463dab6fb2660b1b1760),
 * so its weights can be given as they are.
 */
export const BLIS_FITNESS_TERMS: Readonly<Record<string, string>> = {
  throughput: 'throughput_rps',
  tokens_per_sec: 'throughput_tps',
  p99_ttft: 'ttft_p99',
  p50_ttft: 'ttft_p50',
  mean_ttft: 'ttft_mean',
  p99_e2e: 'e2e_p99',
  p50_e2e: 'e2e_p50',
  mean_e2e: 'e2e_mean',
};

/**
 * Weights as `--fitness-weights` gives them: `term:weight` pairs (or `term=weight`) separated by
 * commas, terms by sluice's name or BLIS's. Throws naming the pair that is wrong.
 */
export function parseFitnessWeights(text: string): FitnessWeights {
  const weights: Record<string, number> = {};
  for (const pair of text.split(',').map((p) => p.trim())) {
    const m = /^([a-z0-9_]+)\s*[:=]\s*(\S+)$/.exec(pair);
    if (!m) throw new RangeError(`fitness weights: '${pair}' is not term:weight (e.g. ttft_p99:1,throughput_rps:2)`);
    const term = BLIS_FITNESS_TERMS[m[1]!] ?? m[1]!;
    if (!FITNESS_TERMS.includes(term)) throw new UnknownFitnessTermError(m[1]!);
    const weight = Number(m[2]);
    if (!Number.isFinite(weight)) throw new RangeError(`fitness weights: the weight of '${m[1]}' must be a finite number, got '${m[2]}'`);
    if (term in weights) throw new RangeError(`fitness weights: '${term}' is given twice`);
    weights[term] = weight;
  }
  return weights;
}

/** Weight per term name; terms not named are not counted. */
export type FitnessWeights = Readonly<Record<string, number>>;

export class UnknownFitnessTermError extends Error {
  constructor(readonly term: string) {
    super(`unknown fitness term '${term}'; allowed: ${FITNESS_TERMS.join(', ')}`);
    this.name = 'UnknownFitnessTermError';
  }
}

/** Latency term: 1 / (1 + v/1000µs) with v the latency in µs (= 1 / (1 + ms)); an unobserved statistic (null) scores 0. */
export function latencyTerm(latencyMs: number | null): number {
  if (latencyMs === null) return 0;
  const micros = latencyMs * 1000;
  return 1 / (1 + micros / 1000);
}

/** Request-throughput term: rps / (rps + 100). */
export function rpsTerm(rps: number): number {
  return rps <= 0 ? 0 : rps / (rps + 100);
}

/** Token-throughput term: tps / (tps + 10000). */
export function tpsTerm(tps: number): number {
  return tps <= 0 ? 0 : tps / (tps + 10000);
}

/** The value in [0, 1] of one named term for a summary; throws UnknownFitnessTermError for other names. */
export function fitnessTerm(summary: Summary, term: string): number {
  if (term === 'throughput_rps') return rpsTerm(summary.throughput.requestsPerSec);
  if (term === 'throughput_tps') return tpsTerm(summary.throughput.outputTokensPerSec);
  if (term === 'goodput_rps') return rpsTerm(summary.goodput.requestsPerSec);
  if (term === 'slo_attainment') return summary.goodput.attainment ?? 0;
  if (!FITNESS_TERMS.includes(term)) throw new UnknownFitnessTermError(term);
  const [metric, stat] = term.split('_') as [(typeof LATENCY_METRICS)[number], (typeof LATENCY_STATS)[number]];
  return latencyTerm(summary[metric][stat]);
}

/** Σ weight·term over the weighted terms. Throws on an unknown term or a non-finite weight. */
export function fitness(summary: Summary, weights: FitnessWeights): number {
  let total = 0;
  for (const [term, weight] of Object.entries(weights)) {
    if (!FITNESS_TERMS.includes(term)) throw new UnknownFitnessTermError(term);
    if (!Number.isFinite(weight)) throw new RangeError(`fitness weight of '${term}' must be a finite number, got ${weight}`);
    total += weight * fitnessTerm(summary, term);
  }
  return total;
}
