import { join } from 'node:path';
import { FREE_PORT_ARGS, startLocalCluster } from '@sluice/launcher';
import type { Trial } from '@sluice/tune';
import { executeRun } from '../run/execute-run.js';
import type { WorkloadInput } from '../run/read-workload-input.js';
import { Output } from '../terminal/output.js';
import { paramArgs, type LoadedSpace } from './read-space.js';
import { measureOf } from './trial-metrics.js';
import type { TuneLiveEntry } from './tune-file.js';

/**
 * Runs each candidate live: a local cluster (`sluice up`'s launcher, on free ports) started with
 * the base config and the candidate's settings, the workload sent through its gateway as `sluice
 * run` sends it, the cluster stopped. A cluster per candidate, because most searched keys (the
 * instances, the routing weights) are read at start-up. The live report goes in
 * OUT/live/trial-N/, and its objective and constraint values stand beside the twin's.
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
  workload: WorkloadInput,
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
      const report = join(outDir, 'live', `trial-${trial.number}`);
      const run = await executeRun(
        {
          workload,
          gateway: cluster.gatewayUrl,
          model: cluster.config.worker.model,
          retries: 0,
          outDir: report,
          config: cluster.config,
          json: true,
          workerUrls: cluster.services.filter((s) => s.name === 'worker').map((s) => s.url),
        },
        silent,
        { write: () => true },
      );
      const live = measureOf(space, run.report.summary, 0);
      entries.push({ number: trial.number, params: trial.params, twin: trial.objectives, live: live.objectives, report: run.jsonFile });
    } finally {
      await cluster.stop();
    }
  }
  return entries;
}
