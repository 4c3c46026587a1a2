import { OUTCOME_REASONS, outcomeOf, micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import type { ClusterView } from '../cluster-view.js';
import { UnknownPolicyError } from '../registry.js';
import { instanceView, policyRequest } from '../testing/builders.js';
import { ADMISSION_POLICY_NAMES, ADMISSION_POLICY_PARAMS, createAdmissionRegistry } from './registry.js';

describe('admission registry', () => {
  it('registers exactly the names config allows', () => {
    expect(createAdmissionRegistry().names()).toEqual([...ADMISSION_POLICY_NAMES]);
    expect(Object.keys(ADMISSION_POLICY_PARAMS).sort()).toEqual([...ADMISSION_POLICY_NAMES].sort());
  });

  it.each(ADMISSION_POLICY_NAMES)('creates %s from {} (all defaults)', (name) => {
    expect(ADMISSION_POLICY_PARAMS[name].safeParse({}).success).toBe(true);
    expect(createAdmissionRegistry().create(name, {}).name).toBe(name);
  });

  it('throws the ZodError naming the bad parameter', () => {
    const registry = createAdmissionRegistry();
    let caught: unknown;
    try {
      registry.create('token-bucket', { capacity: -1 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ZodError);
    expect((caught as ZodError).issues.map((i) => i.path)).toEqual([['capacity']]);
    // Strict: a misspelt knob is an error, not silently ignored.
    expect(() => registry.create('token-bucket', { capacty: 5 })).toThrow(ZodError);
    expect(() => registry.create('always-admit', { anything: 1 })).toThrow(ZodError);
  });

  it('refuses an unknown name', () => {
    expect(() => createAdmissionRegistry().create('first-come', {})).toThrow(UnknownPolicyError);
  });
});

/** Every built-in, from defaults, over the same situations: the AdmissionPolicy contract. */
describe.each(ADMISSION_POLICY_NAMES)('AdmissionPolicy conformance: %s', (name) => {
  const clusters: Record<string, ClusterView> = {
    empty: { instances: [] },
    idle: { instances: [instanceView({ instanceId: 'i1' })] },
    overloaded: {
      instances: [instanceView({ instanceId: 'i1', queueDepth: 500, activeDecodeBlocks: 17_600, activePrefillTokens: 1e6, kvUtilization: 1 })],
    },
  };
  const requests = [
    policyRequest({ priority: 4, inputTokens: 100 }),
    policyRequest({ priority: 3, inputTokens: 4_000 }),
    policyRequest({ priority: -2, inputTokens: 20_000 }),
  ];

  it.each(Object.keys(clusters))('returns a well-formed decision (%s cluster)', (clusterName) => {
    const policy = createAdmissionRegistry().create(name, {});
    let nowUs = 0;
    for (const request of requests) {
      const decision = policy.decide(request, clusters[clusterName]!, (micros(nowUs += 1_000)));
      expect(typeof decision.admit).toBe('boolean');
      for (const [key, value] of Object.entries(decision.inputs)) {
        expect(key).toMatch(/^[a-z][a-z0-9_]*$/); // snake_case: `sluice.admission.<key>`
        expect(['string', 'number', 'boolean']).toContain(typeof value);
      }
      if (!decision.admit) {
        expect(Object.keys(OUTCOME_REASONS)).toContain(decision.reason);
        expect(outcomeOf(decision.reason)).toBe('rejected');
        expect(decision.message.length).toBeGreaterThan(0);
      }
    }
  });
});
