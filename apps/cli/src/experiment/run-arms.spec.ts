import { describe, expect, it } from 'vitest';
import { ExperimentSchema } from './experiment-file.js';
import { twinConfigProblems } from './run-arms.js';

const experiment = (arms: unknown[], cluster: unknown = {}) =>
  ExperimentSchema.parse({ name: 'x', hypothesis: 'h', source: 's', workload: 'w.yaml', cluster, control: 'a', arms, claims: [{ says: 'x', metric: 'overall.completed', arm: 'b', vs: 'a', op: '>' }] });

describe("an experiment's twin config", () => {
  it('refuses what could not take effect in the twin, naming the arm and key: a key the twin does not model, a policy parameter its chain does not run', () => {
    const problems = twinConfigProblems(
      experiment([
        { name: 'a', about: 'control', config: { worker: { timeScale: 10 } } },
        { name: 'b', about: 'treatment', config: { admission: { policy: 'token-bucket', policies: { 'slo-predictive': { headroom: 2 } } } } },
      ]),
      {},
    );
    expect(problems).toEqual([
      'arms.a: worker.timeScale: the twin runs the model at its own speed: worker.timeScale is not modelled (put it under live)',
      'arms.b: admission.policies.slo-predictive.headroom: admission.policy is "token-bucket", so slo-predictive\'s parameters take no effect; set admission.policy: slo-predictive',
    ]);
  });

  it("accepts a policy's parameters while its chain runs it, and busy thresholds whatever the chain (the routers apply them)", () => {
    const ok = experiment([
      { name: 'a', about: 'control', config: { admission: { policies: { 'busy-threshold': { activePrefillTokensThreshold: 4096 } } } } },
      { name: 'b', about: 'treatment', config: { admission: { policy: 'busy-threshold,slo-predictive', policies: { 'slo-predictive': { headroom: 2 } } } } },
    ]);
    expect(twinConfigProblems(ok, {})).toEqual([]);
  });
});
