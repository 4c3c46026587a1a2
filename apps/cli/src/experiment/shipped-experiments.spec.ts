import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';
import { readWorkloadInput } from '../run/read-workload-input.js';
import { judge } from './claims.js';
import { loadExperiment } from './experiment-file.js';
import { recordedDrift } from './experiment-result.js';
import { armFlags, twinArm, twinConfigProblems } from './run-arms.js';

/**
 * Every shipped experiment, in the twin: its verdict and figures are the ones its file records
 * (and its README states), so a change that changes what an experiment shows is seen here.
 */
const DIR = join(REPO_ROOT, 'examples', 'experiments');
const shipped = readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

describe('the shipped experiments, in the twin', () => {
  it('are the seed studies: H14-1, H14-2, H14-3 and a Dynamo threshold sweep', () => {
    expect(shipped).toEqual(expect.arrayContaining(['h14-1', 'h14-2', 'h14-3', 'dynamo-busy-threshold-sweep']));
  });

  const out = mkdtempSync(join(tmpdir(), 'sluice-experiments-'));
  for (const name of shipped) {
    it(`${name}: gives the recorded verdict and figures`, () => {
      const { experiment, workloadFile } = loadExperiment(join(DIR, name, 'experiment.yaml'));
      expect(twinConfigProblems(experiment, {})).toEqual([]);
      const workload = readWorkloadInput(workloadFile);
      const summaries = new Map(experiment.arms.map((arm) => [arm.name, twinArm(workload, armFlags(experiment, arm, 'twin'), {}, join(out, name, arm.name)).summary as unknown]));
      const twin = { where: 'twin' as const, ...judge(experiment, summaries), reports: {} };
      expect(recordedDrift(experiment, twin)).toEqual([]);
    });
  }
});
