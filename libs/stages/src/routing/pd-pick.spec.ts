import { micros } from '@sluice/contracts';
import type { WorkerRole } from '@sluice/engine';
import { createRoutingRegistry, type ClusterView, type InstanceView, type PolicyRequest, type PrefixLookup } from '@sluice/policies';
import { describe, expect, it } from 'vitest';
import { pickPrefillAndDecode, thresholdsForRole, type PdPick, type PdPickSettings } from './pd-pick.js';

const now = micros(0);

function instance(instanceId: string, overrides: Partial<InstanceView> = {}): InstanceView {
  return {
    instanceId,
    workerId: instanceId,
    rank: 0,
    model: 'm',
    totalKvBlocks: 1_000,
    inFlight: 0,
    queueDepth: 0,
    batchSize: 0,
    kvUtilization: 0,
    activePrefillTokens: 0,
    activeDecodeBlocks: 0,
    snapshotAgeUs: micros(0),
    ...overrides,
  };
}

function request(inputTokens: number, blocks = 0): PolicyRequest {
  return { id: 'r', model: 'm', inputTokens, maxTokens: 16, priority: 0, sloClass: 'standard', fairnessId: 'f', blockHashes: Array.from({ length: blocks }, (_, i) => i + 1) };
}

/** A prefix lookup that says each instance holds a fixed number of the request's leading blocks. */
function cached(blocksByInstance: Record<string, number>): PrefixLookup {
  return { matchedBlocks: (id, hashes) => Math.min(hashes.length, blocksByInstance[id] ?? 0) };
}

function pick(view: ClusterView, roles: Record<string, WorkerRole>, req: PolicyRequest, settings: Partial<PdPickSettings> = {}) {
  const policy = createRoutingRegistry().create('least-loaded', {}, { random: () => 0 });
  const policies = { decode: policy, prefill: policy };
  const full: PdPickSettings = { rule: { kind: 'dynamo', maxLocalPrefillLength: 256 }, blockSize: 16, busy: {}, ...settings };
  return pickPrefillAndDecode(req, view, (i) => roles[i.instanceId] ?? 'both', policies, full, now);
}

function placed(result: ReturnType<typeof pick>): PdPick {
  if (typeof result === 'string') throw new Error(`expected a pick, got ${result}`);
  return result;
}

describe('pickPrefillAndDecode', () => {
  const roles = { p1: 'prefill', p2: 'prefill', d1: 'decode', d2: 'decode' } as const;

  it('decodes only on decode-capable instances and prefills a long prompt on a prefill instance', () => {
    const view = { instances: [instance('p1'), instance('d1', { queueDepth: 3 }), instance('d2'), instance('p2', { queueDepth: 1 })] };
    const result = placed(pick(view, roles, request(2_000)));
    expect(result.placement).toBe('remote');
    expect(result.decode.instance.instanceId).toBe('d2');
    expect(result.prefill?.instance.instanceId).toBe('p1');
    expect(result.nonCachedTokens).toBe(2_000);
  });

  it("keeps a short uncached remainder on an aggregated decode instance (Dynamo's local prefill)", () => {
    const view = { instances: [instance('a1'), instance('p1')], prefix: cached({ a1: 100 }) };
    const result = placed(pick(view, { p1: 'prefill' }, request(1_700, 100)));
    expect(result).toMatchObject({ placement: 'local-below-threshold', nonCachedTokens: 100, cachedBlocks: 100 });
    expect(result.decode.instance.instanceId).toBe('a1');
    expect(result.prefill).toBeUndefined();
  });

  it('counts the cache of the chosen decode instance, not of the best-cached one', () => {
    const view = { instances: [instance('a1'), instance('a2', { queueDepth: 5 })], prefix: cached({ a2: 100 }) };
    const result = placed(pick(view, {}, request(1_700, 100)));
    expect(result.decode.instance.instanceId).toBe('a1');
    expect(result).toMatchObject({ placement: 'remote', nonCachedTokens: 1_700 });
    expect(result.prefill?.instance.instanceId).toBe('a2');
  });

  it('always transfers to a decode-only instance, whatever the decider says', () => {
    const view = { instances: [instance('p1'), instance('d1')] };
    const result = placed(pick(view, roles, request(32)));
    expect(result.placement).toBe('remote');
    expect(result.prefill?.instance.instanceId).toBe('p1');
  });

  it('falls back to local prefill when no prefill instance is free and the decode instance can prefill', () => {
    const view = { instances: [instance('a1'), instance('p1', { activePrefillTokens: 10_000 })] };
    const result = placed(pick(view, { p1: 'prefill' }, request(4_000), { busy: { activePrefillTokensThreshold: 5_000 } }));
    expect(result.placement).toBe('local-no-prefill-free');
  });

  it('reports why nothing was picked', () => {
    expect(pick({ instances: [instance('p1')] }, roles, request(100))).toBe('no-decode-instance');
    expect(pick({ instances: [instance('d1')] }, roles, request(100))).toBe('no-prefill-instance');
    const busyDecode = { instances: [instance('p1'), instance('d1', { activeDecodeBlocks: 900 })] };
    expect(pick(busyDecode, roles, request(100), { busy: { activeDecodeBlocksThreshold: 0.5 } })).toBe('all-busy');
    const busyPrefill = { instances: [instance('p1', { activePrefillTokens: 9_000 }), instance('d1')] };
    expect(pick(busyPrefill, roles, request(100), { busy: { activePrefillTokensThreshold: 1_000 } })).toBe('all-busy');
  });

  it('ignores instances of other models', () => {
    const view = { instances: [instance('p1', { model: 'other' }), instance('d1')] };
    expect(pick(view, roles, request(100))).toBe('no-prefill-instance');
  });
});

describe('thresholdsForRole', () => {
  const busy = { activePrefillTokensThreshold: 1_000, activeDecodeBlocksThreshold: 0.8 };

  it('holds a prefill instance to its prefill tokens only, a decode instance to its decode blocks only', () => {
    expect(thresholdsForRole(busy, 'prefill')).toEqual({ activePrefillTokensThreshold: 1_000 });
    expect(thresholdsForRole(busy, 'decode')).toEqual({ activeDecodeBlocksThreshold: 0.8 });
    expect(thresholdsForRole(busy, 'both')).toEqual(busy);
    expect(thresholdsForRole({}, 'prefill')).toEqual({});
  });

  it('so a prefill instance deep in decode blocks is still free to prefill', () => {
    const view = { instances: [instance('p1', { activeDecodeBlocks: 990 }), instance('d1')] };
    const result = placed(pick(view, { p1: 'prefill', d1: 'decode' }, request(100), { busy }));
    expect(result.prefill?.instance.instanceId).toBe('p1');
  });
});
