import { join } from 'node:path';
import { loadConfig, loadProfile } from '@sluice/config';
import { FREE_PORT_ARGS, startLocalCluster } from '@sluice/launcher';
import { writeRunReports, type RunReportFile } from '@sluice/report';
import { executeRun } from '../run/execute-run.js';
import type { WorkloadInput } from '../run/read-workload-input.js';
import { twinReport } from '../run/twin-report.js';
import { inertParam, notModelledInTwin } from '../run/twin-effect.js';
import { Output } from '../terminal/output.js';
import { configFlags, type Arm, type Experiment } from './experiment-file.js';

/**
 * The flags of one arm: the shared cluster's, live runs' own when live, then the arm's (a later
 * flag wins), then the command line's.
 */
export function armFlags(experiment: Experiment, arm: Arm, where: 'twin' | 'live', extra: readonly string[] = []): string[] {
  return [...configFlags(experiment.cluster), ...(where === 'live' ? configFlags(experiment.live) : []), ...configFlags(arm.config), ...extra];
}

/** One arm in the twin: its report, written to `outDir`. */
export function twinArm(workload: WorkloadInput, flags: readonly string[], env: NodeJS.ProcessEnv, outDir: string): RunReportFile {
  const config = loadConfig({ env, argv: flags });
  const { report } = twinReport(workload, { config, profile: loadProfile(config) });
  writeRunReports(outDir, report);
  return report;
}

/**
 * One arm live: a local cluster of its own (free ports, its config), the workload sent to it as
 * `sluice run` sends it, the cluster stopped. Arms run one after another, never side by side, so
 * they do not share the machine's cores.
 */
export async function liveArm(rootDir: string, workload: WorkloadInput, flags: readonly string[], env: NodeJS.ProcessEnv, outDir: string): Promise<RunReportFile> {
  const configArgs = [...flags, ...FREE_PORT_ARGS];
  const config = loadConfig({ env, argv: configArgs });
  const cluster = await startLocalCluster({ rootDir, configArgs, env, logDir: join(outDir, 'logs') });
  try {
    const { report } = await executeRun(
      {
        workload,
        gateway: cluster.gatewayUrl,
        model: config.worker.model,
        retries: 0,
        outDir,
        config,
        json: true,
        workerUrls: cluster.services.filter((s) => s.name === 'worker').map((s) => s.url),
      },
      // The experiment prints its own table: the run's summary and progress line stay out of it.
      new Output({ write: () => true }),
      { write: () => true },
    );
    return report;
  } finally {
    await cluster.stop();
  }
}

/**
 * What in an experiment's twin config could not take effect, one line each naming the arm and
 * key (the same rules `sluice tune` refuses a parameter by): a key the twin does not model in
 * `cluster` or an arm (it belongs under `live`), or a policy's parameters while the arm's chain
 * does not run that policy. An arm that differs from its control only in such a key would measure
 * nothing.
 */
export function twinConfigProblems(experiment: Experiment, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const arm of experiment.arms) {
    const config = loadConfig({ env, argv: armFlags(experiment, arm, 'twin') });
    const paths = [...configFlags(experiment.cluster), ...configFlags(arm.config)].map((flag) => flag.slice(2, flag.indexOf('=')));
    for (const path of new Set(paths)) {
      const notModelled = notModelledInTwin(path);
      if (notModelled !== undefined) problems.push(`arms.${arm.name}: ${path}: ${notModelled} (put it under live)`);
      const inert = inertParam(path, config);
      if (inert !== undefined) problems.push(`arms.${arm.name}: ${path}: ${inert}`);
    }
  }
  return problems;
}
