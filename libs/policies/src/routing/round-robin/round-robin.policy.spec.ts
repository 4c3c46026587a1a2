import { micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { clusterView, instanceView, policyRequest } from '../../testing/builders.js';
import { createRoundRobin } from './round-robin.policy.js';

describe('round-robin', () => {
  it('cycles through the instances of the model in view order, skipping other models', () => {
    const policy = createRoundRobin();
    const view = clusterView([
      instanceView({ instanceId: 'a' }),
      instanceView({ instanceId: 'x', model: 'llama-3-8b' }),
      instanceView({ instanceId: 'b' }),
      instanceView({ instanceId: 'c' }),
    ]);
    const picks = Array.from({ length: 7 }, () => policy.route(policyRequest(), view, micros(0))!.instance.instanceId);
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  it('is load-blind, and its regret says so: loads 0 and 10, the second decision goes to the busy one, regret 10', () => {
    const policy = createRoundRobin();
    const view = clusterView([instanceView({ instanceId: 'idle' }), instanceView({ instanceId: 'busy', queueDepth: 4, batchSize: 5, inFlight: 1 })]);
    const first = policy.route(policyRequest(), view, micros(0))!;
    expect(first.instance.instanceId).toBe('idle');
    expect(first.regret).toBe(0);
    const second = policy.route(policyRequest(), view, micros(0))!;
    expect(second.instance.instanceId).toBe('busy');
    expect(second.regret).toBe(10);
    expect(second.ranked).toEqual([
      { instanceId: 'idle', score: 0, effectiveLoad: 0 },
      { instanceId: 'busy', score: -10, effectiveLoad: 10 },
    ]);
  });

  it('keeps its cursor across changing instance sets and models', () => {
    const policy = createRoundRobin();
    const two = clusterView([instanceView({ instanceId: 'a' }), instanceView({ instanceId: 'b' })]);
    const three = clusterView([...two.instances, instanceView({ instanceId: 'c' })]);
    expect(policy.route(policyRequest(), two, micros(0))!.instance.instanceId).toBe('a'); // cursor 0
    expect(policy.route(policyRequest({ model: 'other' }), two, micros(0))).toBeNull(); // no decision, cursor stays
    expect(policy.route(policyRequest(), three, micros(0))!.instance.instanceId).toBe('b'); // cursor 1
    expect(policy.route(policyRequest(), three, micros(0))!.instance.instanceId).toBe('c'); // cursor 2
    expect(policy.route(policyRequest(), two, micros(0))!.instance.instanceId).toBe('b'); // cursor 3 mod 2
  });

  it('takes no parameters', () => {
    expect(() => createRoundRobin({ start: 1 })).toThrow(ZodError);
  });
});
