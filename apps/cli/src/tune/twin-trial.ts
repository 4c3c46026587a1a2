import { performance } from 'node:perf_hooks';
import { loadConfig, loadProfile } from '@sluice/config';
import type { RunReport } from '@sluice/metrics';
import type { WorkloadInput } from '../run/read-workload-input.js';
import { twinReport } from '../run/twin-report.js';

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
 * Runs one trial exactly as `sluice simulate` runs a workload (the same config loading and the
 * same report builder, `twinReport`), so a trial's figures are the ones `sluice simulate` prints
 * for the same flags. Used by the worker threads and, for the baseline, by the command itself.
 */
export function runTwinTrial(workload: WorkloadInput, job: TwinTrialJob, env: NodeJS.ProcessEnv): TwinTrialResult {
  const started = performance.now();
  const config = loadConfig({ env, argv: job.configArgs });
  const { report } = twinReport(workload, { config, profile: loadProfile(config), seed: job.seed });
  return { summary: report.summary, durationMs: performance.now() - started };
}
