import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { instanceView, policyRequest } from '../../testing/builders.js';
import { REJECT_ALL, createRejectAll } from './reject-all.policy.js';

describe('reject-all', () => {
  it('rejects every request with rejected_by_policy', () => {
    const policy = createRejectAll({});
    expect(policy.name).toBe(REJECT_ALL);
    const cluster = { instances: [instanceView({ instanceId: 'i1' })] };
    for (const priority of [4, 0, -3]) {
      expect(policy.decide(policyRequest({ priority }), cluster, micros(0))).toEqual({
        admit: false,
        reason: 'rejected_by_policy',
        message: 'rejected by policy reject-all',
        inputs: {},
      });
    }
  });

  it('takes no parameters', () => {
    expect(() => createRejectAll({ rate: 1 })).toThrow();
  });
});
