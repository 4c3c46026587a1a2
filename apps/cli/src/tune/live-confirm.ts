import { join } from 'node:path';
import { FREE_PORT_ARGS, startLocalCluster } from '@sluice/launcher';
import { meanMeasure, type Trial, type TrialMeasure } from '@sluice/tune';
import { executeRun } from '../run/execute-run.js';
import type { WorkloadInput } from '../run/read-workload-input.js';
import { Output } from '../terminal/output.js';
import { paramArgs, type LoadedSpace } from './read-space.js';
import { measureOf } from './trial-metrics.js';
import type { TuneLiveEntry } from './tune-file.js';

/**
 * Runs each candidate live: a local cluster (`sluice up`'s launcher, on free ports) started with
 * the base config and the candidate's settings, the workload sent through its gateway as `sluice
 * run` sends it (once per workload seed, as the twin ran it), the cluster stopped. A cluster per
 * candidate, because most searched keys (the instances, the routing weights) are read at start-up.
 * The live reports go in OUT/live/trial-N/ (seed-S/ below it with several workload seeds), and
 * the mean of their objective values stands beside the twin's.
 */
/** Where the clusters start and where their progress is told. */
export interface LiveContext {
  readonly rootDir: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stderr: Output;
}

export async function confirmLive(
  ctx: LiveContext,
  space: LoadedSpace,
  workloads: readonly WorkloadInput[],
  candidates: readonly Trial[],
  configArgs: readonly string[],
  outDir: string,
): Promise<TuneLiveEntry[]> {
  const entries: TuneLiveEntry[] = [];
  const silent = new Output({ write: () => true });
  for (const trial of candidates) {
    ctx.stderr.line(`live: trial #${trial.number}: starting a cluster with ${paramArgs(trial.params).join(' ')}`);
    const cluster = await startLocalCluster({ rootDir: ctx.rootDir, cwd: ctx.cwd, env: ctx.env, configArgs: [...FREE_PORT_ARGS, ...configArgs, ...paramArgs(trial.params)] });
    try {
      const dir = join(outDir, 'live', `trial-${trial.number}`);
      const measures: TrialMeasure[] = [];
      const reports: string[] = [];
      for (const workload of workloads) {
        const run = await executeRun(
          {
            workload,
            gateway: cluster.gatewayUrl,
            model: cluster.config.worker.model,
            retries: 0,
            outDir: workloads.length === 1 ? dir : join(dir, `seed-${workload.seed}`),
            config: cluster.config,
            json: true,
            workerUrls: cluster.services.filter((s) => s.name === 'worker').map((s) => s.url),
          },
          silent,
          { write: () => true },
        );
        measures.push(measureOf(space, run.report.summary, 0));
        reports.push(run.jsonFile);
      }
      entries.push({ number: trial.number, params: trial.params, twin: trial.objectives, live: meanMeasure(measures).objectives, reports });
    } finally {
      await cluster.stop();
    }
  }
  return entries;
}
