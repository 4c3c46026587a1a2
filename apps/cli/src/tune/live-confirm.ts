import { join } from 'node:path';
import { meanMeasure, type Trial, type TrialMeasure } from '@sluice/tune';
import { liveArm } from '../experiment/run-arms.js';
import type { WorkloadInput } from '../run/read-workload-input.js';
import type { Output } from '../terminal/output.js';
import { paramArgs, type LoadedSpace } from './read-space.js';
import { measureOf } from './trial-metrics.js';
import type { TuneLiveEntry } from './tune-file.js';

/** Where the clusters start and where their progress is told. */
export interface LiveContext {
  readonly rootDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stderr: Output;
}

/**
 * Runs each candidate live: a local cluster (`sluice up`'s launcher, on free ports) started with
 * the base config and the candidate's settings, the workload sent through its gateway as `sluice
 * run` sends it (once per workload seed, as the twin ran it), the cluster stopped. A fresh cluster
 * per candidate, because most searched keys (the instances, the routing weights) are read at
 * start-up. The live reports go in OUT/live/trial-N/ (seed-S/ below it with several workload seeds), and
 * the mean of their objective values stands beside the twin's.
 */
export async function confirmLive(
  ctx: LiveContext,
  space: LoadedSpace,
  workloads: readonly WorkloadInput[],
  candidates: readonly Trial[],
  configArgs: readonly string[],
  outDir: string,
): Promise<TuneLiveEntry[]> {
  const entries: TuneLiveEntry[] = [];
  for (const trial of candidates) {
    const flags = [...configArgs, ...paramArgs(trial.params)];
    ctx.stderr.line(`live: trial #${trial.number}: a cluster with ${paramArgs(trial.params).join(' ')}`);
    const dir = join(outDir, 'live', `trial-${trial.number}`);
    const measures: TrialMeasure[] = [];
    const reports: string[] = [];
    // One cluster per run, as `sluice experiment` runs an arm live (run-arms.ts): the same start, run and stop.
    for (const workload of workloads) {
      const runDir = workloads.length === 1 ? dir : join(dir, `seed-${workload.seed}`);
      const report = await liveArm(ctx.rootDir, workload, flags, ctx.env, runDir);
      measures.push(measureOf(space, report.summary, 0));
      reports.push(join(runDir, 'report.json'));
    }
    entries.push({ number: trial.number, params: trial.params, twin: trial.objectives, live: meanMeasure(measures).objectives, reports });
  }
  return entries;
}
