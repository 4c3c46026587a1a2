import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { seededRandom } from '@sluice/collections';
import { UnknownPolicyError } from '../registry.js';
import { clusterView, instanceViews, policyRequest } from '../testing/builders.js';
import { ROUTING_POLICY_NAMES, ROUTING_POLICY_PARAMS, RoutingPolicyRegistry, createRoutingRegistry } from './registry.js';
import { createRoundRobin } from './round-robin/round-robin.policy.js';

describe('routing registry', () => {
  it('registers exactly the names config allows, each with a params schema', () => {
    expect(ROUTING_POLICY_NAMES).toEqual(['round-robin', 'least-loaded', 'always-busiest', 'weighted', 'kv-router']);
    expect(createRoutingRegistry().names()).toEqual([...ROUTING_POLICY_NAMES]);
    expect(Object.keys(ROUTING_POLICY_PARAMS).sort()).toEqual([...ROUTING_POLICY_NAMES].sort());
  });

  it.each(ROUTING_POLICY_NAMES)('creates %s from {} (all defaults), with or without deps', (name) => {
    expect(ROUTING_POLICY_PARAMS[name].safeParse({}).success).toBe(true);
    expect(createRoutingRegistry().create(name, {}).name).toBe(name);
    expect(createRoutingRegistry().create(name, {}, { random: seededRandom(1) }).name).toBe(name);
  });

  it.each(ROUTING_POLICY_NAMES)('%s: strict params, a misspelt knob is an error', (name) => {
    expect(() => createRoutingRegistry().create(name, { wieghts: 'queue-depth:1' })).toThrow(ZodError);
    expect(ROUTING_POLICY_PARAMS[name].safeParse({ wieghts: 1 }).success).toBe(false);
  });

  it('refuses an unknown name, listing the known ones', () => {
    expect(() => createRoutingRegistry().create('random', {})).toThrow(UnknownPolicyError);
    expect(() => createRoutingRegistry().create('random', {})).toThrow(
      'unknown routing policy "random"; allowed: round-robin, least-loaded, always-busiest, weighted',
    );
  });

  it('refuses a name registered twice', () => {
    expect(() => new RoutingPolicyRegistry().register('x', createRoundRobin).register('x', createRoundRobin)).toThrow('registered twice');
  });

  it('passes the deps to the factory', () => {
    const seen: unknown[] = [];
    const random = () => 0.5;
    new RoutingPolicyRegistry()
      .register('spy', (params, deps) => {
        seen.push(params, deps.random);
        return createRoundRobin();
      })
      .create('spy', { a: 1 }, { random });
    expect(seen).toEqual([{ a: 1 }, random]);
  });

  it('without deps, seeds the random source from the policy name: two routers tie-break alike', () => {
    const view = clusterView(instanceViews(4));
    const picks = () => {
      const policy = createRoutingRegistry().create('least-loaded', {});
      return Array.from({ length: 20 }, () => policy.route(policyRequest(), view, micros(0))!.instance.instanceId);
    };
    const first = picks();
    expect(picks()).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1); // it does draw: all four tie
  });
});
