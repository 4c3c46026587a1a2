import type { LatencyStats } from './percentile.js';
import type { Summary } from './summary.js';

const LATENCY_METRICS = ['ttft', 'itl', 'e2e'] as const;
const LATENCY_STATS = ['mean', 'p50', 'p90', 'p95', 'p99'] as const;

/**
 * The accepted fitness term names: `<ttft|itl|e2e>_<mean|p50|p90|p95|p99>` (e.g. `ttft_p99`) and
 * `throughput_rps`, `throughput_tps`.
 */
export const FITNESS_TERMS: readonly string[] = [
  ...LATENCY_METRICS.flatMap((m) => LATENCY_STATS.map((s) => `${m}_${s}`)),
  'throughput_rps',
  'throughput_tps',
];

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
  if (!FITNESS_TERMS.includes(term)) throw new UnknownFitnessTermError(term);
  const [metric, stat] = term.split('_') as [(typeof LATENCY_METRICS)[number], keyof Omit<LatencyStats, 'count'>];
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
