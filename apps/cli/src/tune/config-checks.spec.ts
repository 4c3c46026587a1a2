import { describe, expect, it } from 'vitest';
import type { Param } from '@sluice/tune';
import { configProblems } from './config-checks.js';

const headroom: Param = { kind: 'range', path: 'admission.policies.slo-predictive.headroom', min: 0.5, max: 2, log: false, int: false };

describe('configProblems: every parameter tried against the real config schema before the first trial', () => {
  it('accepts keys that exist, in ranges the schema allows, for the policy that runs', () => {
    expect(configProblems(['--admission.policy=slo-predictive'], [headroom], {})).toEqual([]);
  });

  it('refuses a policy parameter while another policy runs: it would take no effect', () => {
    expect(configProblems(['--admission.policy=token-bucket'], [headroom], {})).toEqual([
      'parameters.admission.policies.slo-predictive.headroom: admission.policy is "token-bucket", so slo-predictive\'s parameters take no effect; set admission.policy: slo-predictive in base.set',
    ]);
  });

  it('accepts it when admission.policy is itself searched over a list that names the policy', () => {
    const policy: Param = { kind: 'choice', path: 'admission.policy', choices: ['token-bucket', 'slo-predictive'] };
    expect(configProblems([], [policy, headroom], {})).toEqual([]);
  });

  it('names a key the config does not have, and an end of a range the schema refuses', () => {
    const unknown: Param = { kind: 'range', path: 'worker.turbo', min: 1, max: 2, log: false, int: false };
    const instances: Param = { kind: 'range', path: 'worker.instances', min: 0, max: 4, log: false, int: true };
    const problems = configProblems([], [unknown, instances], {});
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('parameters.worker.turbo = 1: worker: Unrecognized key: "turbo"');
    expect(problems[1]).toMatch(/^parameters\.worker\.instances = 0: worker\.instances: /);
  });

  it('refuses keys the twin does not model: a trial would not see them change', () => {
    const range = (path: string): Param => ({ kind: 'range', path, min: 1, max: 4, log: false, int: true });
    const problems = configProblems([], [range('worker.timeScale'), range('gateway.replicas'), range('router.port'), range('metrics.maxTenantSeries')], {});
    expect(problems).toEqual([
      'parameters.worker.timeScale: the twin runs the model at its own speed: worker.timeScale is not modelled',
      'parameters.gateway.replicas: the twin runs one gateway (docs/twin.md, "Stage replicas")',
      'parameters.router.port: the twin has no processes or bus connections: the key is not modelled',
      'parameters.metrics.maxTenantSeries: the twin serves no /metrics pages: metrics.* is not modelled',
    ]);
  });

  it('names a problem of the base config as such', () => {
    expect(configProblems(['--worker.instances=0'], [], {})[0]).toMatch(/^base config: worker\.instances: /);
  });
});
