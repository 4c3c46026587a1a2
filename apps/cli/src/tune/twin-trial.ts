import { performance } from 'node:perf_hooks';
import { loadConfig, loadProfile } from '@sluice/config';
import { buildReport, type RunReport } from '@sluice/metrics';
import { simulate } from '@sluice/twin';
import type { WorkloadInput } from '../run/read-workload-input.js';

/** One trial as the twin runs it: the workload under a config given as flags, seeded. */
export interface TwinTrialJob {
  /** `--config FILE` and `--key.path=value` flags: the base config, then the trial's settings. */
  readonly configArgs: readonly string[];
  /** The twin's seed (routing tie-breaks, bus-fault draws). */
  readonly seed: number;
  /** The workload spec's seed for this run, when the space lists workloadSeeds (else the spec's own). */
  readonly workloadSeed?: number;
}

export interface TwinTrialResult {
  readonly summary: RunReport;
  readonly durationMs: number;
}

/**
 * Runs one trial exactly as `sluice simulate` runs a workload (the same config loading, the same
 * twin, the same report builder), so a trial's figures are the ones `sluice simulate` would print
 * for the same flags. Used by the worker threads and, for the baseline, by the command itself.
 */
export function runTwinTrial(workload: WorkloadInput, job: TwinTrialJob, env: NodeJS.ProcessEnv): TwinTrialResult {
  const started = performance.now();
  const config = loadConfig({ env, argv: job.configArgs });
  const profile = loadProfile(config);
  const { records } = simulate(workload.requests, { config, profile, seed: job.seed });
  const summary = buildReport(records, { expectedRequests: workload.requests.length });
  return { summary, durationMs: performance.now() - started };
}
