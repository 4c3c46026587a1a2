import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { formatFieldIssue } from '@sluice/contracts';
import {
  ChaosScenarioError,
  WorkloadError,
  parseChaosScenario,
  parseWorkloadSpec,
  scaleFaults,
  scaleWorkloadSpec,
  type ChaosScenario,
  type Fault,
  type WorkloadSpec,
} from '@sluice/workload';

/** `--short`: a scenario's time axis × 0.2 (a 25 s scenario in about 5 s, for CI), in `sluice chaos` and `sluice simulate --chaos`. */
export const SHORT_SCALE = 0.2;

/** A scenario ready to run: its workload read and both time axes scaled. */
export interface LoadedScenario {
  readonly file: string;
  readonly scenario: ChaosScenario;
  /** The workload file, or the scenario file when the workload is inline. */
  readonly workloadFile: string;
  readonly spec: WorkloadSpec;
  readonly faults: readonly Fault[];
  /** The factor the time axis was scaled by (1 = as written). */
  readonly scale: number;
}

/** Why a scenario cannot run, one line per problem, each naming its file and key path. */
export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';

  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Reads a scenario and its workload. A workload given as a file name is relative to the
 * scenario's own directory, so a scenario and its workload move together and run from anywhere.
 */
export function loadScenario(file: string, scale = 1): LoadedScenario {
  const scenario = parse(file, () => parseChaosScenario(readText(file)));
  let workloadFile = file;
  let spec: WorkloadSpec;
  if (typeof scenario.workload === 'string') {
    workloadFile = resolve(dirname(file), scenario.workload);
    spec = parse(workloadFile, () => parseWorkloadSpec(readText(workloadFile)), 'workload: ');
  } else {
    spec = scenario.workload;
  }
  return { file, scenario, workloadFile, spec: scaleWorkloadSpec(spec, scale), faults: scaleFaults(scenario.faults, scale), scale };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScenarioLoadError([`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
  }
}

function parse<T>(file: string, read: () => T, prefix = ''): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ChaosScenarioError || error instanceof WorkloadError) {
      throw new ScenarioLoadError(error.issues.map((issue) => `${file}: ${prefix}${formatFieldIssue(issue)}`));
    }
    throw error;
  }
}
