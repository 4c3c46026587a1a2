import { checkConservation, conservation, type ConservationBooks, type ConservationCheck } from './conservation.js';
import { fitness, type FitnessWeights } from './fitness.js';
import type { Goodput } from './goodput.js';
import { jainIndex } from './jain.js';
import { summarizeBy, summarizeRecords, type Summary } from './summary.js';
import { runWindow, type RunWindow, type Throughput } from './throughput.js';
import type { RequestRecord } from './types.js';

export interface ReportOptions {
  /** Fitness weights by term name (see FITNESS_TERMS); without them `fitness` is null. */
  readonly fitnessWeights?: FitnessWeights;
  /** How many requests the workload offered, for the conservation books (default: distinct ids). */
  readonly expectedRequests?: number;
}

/** A run's report: plain JSON-able data. Latencies in ms. */
export interface RunReport {
  readonly window: RunWindow;
  readonly overall: Summary;
  readonly bySloClass: Record<string, Summary>;
  readonly byFairnessId: Record<string, Summary>;
  readonly throughput: Throughput;
  /** The whole run's goodput and SLO attainment (`overall.goodput`, here for a short path: `summary.goodput`). */
  readonly goodput: Goodput;
  readonly jain: {
    /** Jain's index over output tokens of completed requests per tenant (every tenant seen counts, starved ones as 0). */
    readonly index: number;
    readonly outputTokensByFairnessId: Record<string, number>;
  };
  readonly conservation: { readonly books: ConservationBooks; readonly check: ConservationCheck };
  /** Weighted fitness of the overall summary, or null without weights. */
  readonly fitness: number | null;
}

export function buildReport(records: readonly RequestRecord[], options: ReportOptions = {}): RunReport {
  const window = runWindow(records);
  const overall = summarizeRecords(records, window);
  const byFairnessId = summarizeBy(records, (r) => r.fairnessId, window);
  const outputTokensByFairnessId = Object.fromEntries(Object.entries(byFairnessId).map(([t, s]) => [t, s.outputTokens]));
  const books = conservation(records, options.expectedRequests);
  return {
    window,
    overall,
    bySloClass: summarizeBy(records, (r) => r.sloClass, window),
    byFairnessId,
    throughput: overall.throughput,
    goodput: overall.goodput,
    jain: { index: jainIndex(Object.values(outputTokensByFairnessId)), outputTokensByFairnessId },
    conservation: { books, check: checkConservation(books) },
    fitness: options.fitnessWeights ? fitness(overall, options.fitnessWeights) : null,
  };
}
