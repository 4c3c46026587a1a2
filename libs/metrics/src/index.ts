export { OUTCOMES, type Outcome, type RequestRecord, type RunRecord, type ServedTimings } from './types.js';
export { percentile, summarize, type LatencyStats } from './percentile.js';
export { ttftSamples, itlSamples, e2eSamples, requestItls } from './samples.js';
export { runWindow, throughput, type RunWindow, type Throughput } from './throughput.js';
export { jainIndex } from './jain.js';
export { summarizeRecords, summarizeBy, groupBy, type Summary } from './summary.js';
export { FITNESS_TERMS, UnknownFitnessTermError, fitness, fitnessTerm, latencyTerm, rpsTerm, tpsTerm, type FitnessWeights } from './fitness.js';
export { conservation, checkConservation, type ConservationBooks, type ConservationCheck } from './conservation.js';
export { buildReport, type ReportOptions, type RunReport } from './report.js';
