import { describe, expect, it } from 'vitest';
import { SpaceError, parseSpace } from './space.schema.js';

const minimal = {
  workload: 'w.yaml',
  parameters: { 'admission.policies.slo-predictive.headroom': { min: 0.5, max: 2 } },
  objective: { maximize: 'throughput.requestsPerSec' },
};

function problemsOf(doc: unknown): readonly string[] {
  try {
    parseSpace(doc);
  } catch (error) {
    if (error instanceof SpaceError) return error.problems;
    throw error;
  }
  return [];
}

describe('the space file', () => {
  it('reads a minimal space with the defaults', () => {
    const space = parseSpace(minimal);
    expect(space.params).toEqual([{ kind: 'range', path: 'admission.policies.slo-predictive.headroom', min: 0.5, max: 2, log: false, int: false }]);
    expect(space.objectives).toEqual([{ path: 'throughput.requestsPerSec', direction: 'maximize' }]);
    expect(space.constraints).toEqual([]);
    expect(space.file).toMatchObject({ trials: 40, batchSize: 4, startupTrials: 10, sampler: 'tpe', seed: 0, confirm: 3, base: { set: {} } });
  });

  it('reads choices, log and int ranges, per-class objectives and constraints in order', () => {
    const space = parseSpace({
      ...minimal,
      parameters: {
        'admission.policy': { choices: ['token-bucket', 'slo-predictive'] },
        'worker.maxBatchTokens': { min: 512, max: 8192, log: true, int: true },
      },
      objective: [{ minimize: 'ttft.p99', sloClass: 'critical' }, { maximize: 'throughput.requestsPerSec' }],
      constraints: [{ metric: 'e2e.p99', tenant: 'acme', max: 5000 }, { metric: 'overall.completed', min: 100 }],
    });
    expect(space.params.map((p) => p.kind)).toEqual(['choice', 'range']);
    expect(space.objectives).toEqual([
      { path: 'ttft.p99', direction: 'minimize', sloClass: 'critical' },
      { path: 'throughput.requestsPerSec', direction: 'maximize' },
    ]);
    expect(space.constraints).toEqual([
      { path: 'e2e.p99', tenant: 'acme', max: 5000 },
      { path: 'overall.completed', min: 100 },
    ]);
  });

  it('names the key path of each problem', () => {
    const problems = problemsOf({
      workload: 'w.yaml',
      parameters: {
        'admission.policies.slo-predictive.headroom': { min: 2, max: 1 },
        'worker.kvBlocks': { min: 0, max: 100, log: true },
        'worker.instances': { min: 1.5, max: 4, int: true },
        notakey: { min: 0, max: 1 },
        'router.policy': { choices: ['weighted'] },
      },
      objective: { maximize: 'throughput.requestsPerSec', minimize: 'ttft.p99' },
      constraints: [{ metric: 'ttft.p99' }],
      trials: 0,
      colour: 'blue',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'parameters.admission.policies.slo-predictive.headroom.max: must be greater than min (2)',
        'parameters.worker.kvBlocks.min: must be > 0 on a log scale',
        'parameters.worker.instances.min: min and max must be whole numbers with int: true',
        expect.stringMatching(/^parameters\.notakey: .*dotted config key/),
        'parameters.router.policy.choices: list at least two choices',
        expect.stringMatching(/^objective: /),
        'constraints[0]: give max (metric ≤ max) or min (metric ≥ min), or both',
        expect.stringMatching(/^trials: /),
        'colour: unknown key',
      ]),
    );
  });

  it('requires the workload, a parameter and an objective', () => {
    expect(problemsOf({})).toEqual(expect.arrayContaining(['workload: is required', 'parameters: is required', 'objective: is required']));
    expect(problemsOf({ ...minimal, parameters: {} })).toEqual(['parameters: list at least one parameter']);
  });

  it('refuses a key both searched and fixed in base.set, and more than two objectives', () => {
    expect(problemsOf({ ...minimal, base: { set: { 'admission.policies.slo-predictive.headroom': 1 } } })).toEqual([
      'parameters.admission.policies.slo-predictive.headroom: is also set in base.set: a searched key cannot be fixed too',
    ]);
    const three = { maximize: 'a' };
    expect(problemsOf({ ...minimal, objective: [three, three, three] }).join()).toMatch(/objective/);
  });
});
